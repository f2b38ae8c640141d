package io.jrnic.bench;

/** Entry point of {@code rnic-bench.jar}: dispatches to the command-line tools. */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) {
        System.out.println("jrnic bench");
    }
}
