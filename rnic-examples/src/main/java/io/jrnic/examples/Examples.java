package io.jrnic.examples;

import io.jrnic.examples.basics.BasicsClient;
import io.jrnic.examples.basics.BasicsServer;
import io.jrnic.examples.kv.KvClient;
import io.jrnic.examples.kv.KvServer;
import io.jrnic.examples.log.LogClient;
import io.jrnic.examples.log.LogServer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs an example's server and client as two JVMs on this machine, the way a user would in two
 * terminals: starts the server on a free loopback port, waits until it prints that port, starts
 * the client against it, and relays both outputs with a prefix. {@code java -jar rnic-examples.jar
 * kv} ({@code ./jrnic example kv}); the children get no JVM option but a heap limit.
 *
 * <p>Exit status: 0 when every process of the example exited with 0, else the first failure's
 * status (2 for a usage error, 124 for a process that did not finish in time).
 *
 * <p>Thread safety: {@link #run} may be called from several threads (each call has its own
 * processes).
 */
public final class Examples {
    /** Exit status of a process that did not finish within its time limit (like timeout(1)). */
    public static final int TIMED_OUT = 124;
    /** What each process may take at most. */
    public static final long PROCESS_TIMEOUT_SECONDS = 60;

    private static final Pattern LISTENING = Pattern.compile("listening on port (\\d+)");

    private Examples() {
    }

    /**
     * Runs the named examples.
     *
     * @param args {@code basics}, {@code error}, {@code hello}, {@code kv}, {@code log} or {@code all}
     *             (the default)
     * @throws Exception when a process cannot be started
     */
    public static void main(String[] args) throws Exception {
        System.exit(run(args.length == 0 ? "all" : args[0], System.out));
    }

    /**
     * Runs one example (or all of them, one after the other).
     *
     * @param name {@code basics}, {@code error} (basics ending with a remote Terminate), {@code hello}
     *             (the README's program against the basics server), {@code kv}, {@code log} or
     *             {@code all} (basics, kv and log)
     * @param out  where the processes' output goes, one prefixed line each
     * @return the exit status
     * @throws Exception when a process cannot be started or the wait is interrupted
     */
    public static int run(String name, PrintStream out) throws Exception {
        return switch (name) {
            case "basics" -> pair("basics", out, BasicsServer.class, List.of(), BasicsClient.class, List.of());
            case "hello" -> pair("hello", out, BasicsServer.class, List.of(), Hello.class, List.of());
            case "error" -> pair("error", out, BasicsServer.class, List.of(), BasicsClient.class, List.of("--error"));
            // CRC off: GETs racing PUTs need it for now (KvClient.race)
            case "kv" -> pair("kv", out, KvServer.class, List.of("--once", "--crc", "off"), KvClient.class,
                    List.of("--crc", "off", "--race"));
            case "log" -> log(out);
            case "all" -> {
                for (String each : List.of("basics", "kv", "log")) {
                    int status = run(each, out);
                    if (status != 0) {
                        yield status;
                    }
                }
                yield 0;
            }
            default -> {
                out.println("usage: Examples basics|error|hello|kv|log|all");
                yield 2;
            }
        };
    }

    /** The log: a server and a client on a new file, then the server once more to read it back. */
    private static int log(PrintStream out) throws Exception {
        Path file = Files.createTempFile("jrnic-log", ".bin");
        try {
            List<String> fileArgs = List.of("--file", file.toString());
            int status = pair("log", out, LogServer.class, concat(fileArgs, List.of("--once")), LogClient.class, List.of());
            if (status != 0) {
                return status;
            }
            out.println("[log] restarting the server on " + file);
            Process again = start(LogServer.class, concat(fileArgs, List.of("--recover-only")));
            return await(again, relay(again, "[log server] ", out, null));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Server, then client once the server listens; both must exit with 0. */
    private static int pair(String label, PrintStream out, Class<?> server, List<String> serverArgs, Class<?> client,
                            List<String> clientArgs) throws Exception {
        Process serverProcess = start(server, concat(List.of("--bind", "127.0.0.1", "--port", "0"), serverArgs));
        Process clientProcess = null;
        try {
            CompletableFuture<Integer> port = new CompletableFuture<>();
            Thread serverOutput = relay(serverProcess, "[" + label + " server] ", out, port);
            Integer listening = port.get(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (listening == null) {
                return await(serverProcess, serverOutput); // it ended before it listened
            }
            // Hello, the README's program, takes the port alone; the others --connect HOST:PORT
            clientProcess = start(client, client == Hello.class ? List.of(listening.toString())
                    : concat(List.of("--connect", "127.0.0.1:" + listening), clientArgs));
            int clientStatus = await(clientProcess, relay(clientProcess, "[" + label + " client] ", out, null));
            if (clientStatus != 0) {
                return clientStatus; // the server may wait for a client that is gone: the finally kills it
            }
            return await(serverProcess, serverOutput);
        } catch (java.util.concurrent.TimeoutException e) {
            out.println("[" + label + "] the server did not listen within " + PROCESS_TIMEOUT_SECONDS + " s");
            return TIMED_OUT;
        } finally {
            serverProcess.destroyForcibly();
            if (clientProcess != null) {
                clientProcess.destroyForcibly();
            }
        }
    }

    /** A JVM running {@code main} of the class, on this JVM's class path. */
    private static Process start(Class<?> main, List<String> args) throws IOException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(args);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        return p;
    }

    /**
     * Copies a process's output lines to {@code out} on a new thread; completes {@code port} from
     * "listening on port N" (null at the end of the output).
     */
    private static Thread relay(Process p, String prefix, PrintStream out, CompletableFuture<Integer> port) {
        return Thread.ofPlatform().daemon().name("relay " + prefix.trim()).start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    out.println(prefix + line);
                    Matcher m = LISTENING.matcher(line);
                    if (port != null && m.find()) {
                        port.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            if (port != null) {
                port.complete(null);
            }
        });
    }

    /**
     * The exit status, once the whole output was relayed, or {@link #TIMED_OUT} after killing a
     * process that ran too long.
     */
    private static int await(Process p, Thread output) throws InterruptedException {
        boolean finished = p.waitFor(PROCESS_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        output.join(TimeUnit.SECONDS.toMillis(10));
        return finished ? p.exitValue() : TIMED_OUT;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
