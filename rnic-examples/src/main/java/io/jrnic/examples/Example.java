package io.jrnic.examples;

import io.jrnic.api.CompletionQueue;
import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import io.jrnic.api.QueuePair;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * What every example needs besides the Verbs: its command-line options and a checked wait for a
 * completion. Kept small so that each program reads top-down on its own.
 *
 * <p>Thread safety: stateless.
 */
public final class Example {
    /** How long a client waits for one completion before it gives up. */
    public static final long COMPLETION_TIMEOUT_SECONDS = 10;

    private Example() {
    }

    /**
     * The address a server listens on: {@code --bind ADDR} (default every interface) and
     * {@code --port N} (0: any free port; the server prints the one it got).
     *
     * @param args        the command line
     * @param defaultPort the port without {@code --port}
     * @return the address to listen on
     */
    public static InetSocketAddress listenAddress(String[] args, int defaultPort) {
        int port = Integer.parseInt(option(args, "--port", Integer.toString(defaultPort)));
        return new InetSocketAddress(option(args, "--bind", "0.0.0.0"), port);
    }

    /**
     * The server a client connects to: {@code --connect HOST:PORT}.
     *
     * @param args        the command line
     * @param defaultPort the port when the option is missing (the host is then 127.0.0.1)
     * @return the server's address
     */
    public static InetSocketAddress connectAddress(String[] args, int defaultPort) {
        String hostPort = option(args, "--connect", "127.0.0.1:" + defaultPort);
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("--connect wants HOST:PORT, got " + hostPort);
        }
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /**
     * The connection settings: the defaults, but for {@code --crc off}, which sends C=0 in the MPA
     * frames (RFC 5044 §4.4): CRCs are then off when the peer sends C=0 too (Linux siw's default as
     * Initiator), and TCP's checksum alone guards the data.
     *
     * @param args the command line
     * @return new settings
     */
    public static ConnectionSettings settings(String[] args) {
        boolean off = option(args, "--crc", "on").equals("off");
        return new ConnectionSettings().crc(off ? CrcMode.OFF : CrcMode.OPTIONAL);
    }

    /**
     * The value after {@code name} on the command line.
     *
     * @param args         the command line
     * @param name         the option, e.g. {@code --file}
     * @param defaultValue the value when the option is missing
     * @return the value
     */
    public static String option(String[] args, String name, String defaultValue) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return defaultValue;
    }

    /**
     * Whether a flag (an option without a value) is on the command line.
     *
     * @param args the command line
     * @param name the flag, e.g. {@code --once}
     * @return true when present
     */
    public static boolean flag(String[] args, String name) {
        for (String a : args) {
            if (a.equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Waits for the next completion and insists that it succeeded. A failed work request ends the
     * program with what the application can know about it: the completion status and, when the
     * queue pair was terminated, the Terminate message (the peer's, or the one this side sent;
     * RFC 5040 §7, Verbs 1.0 §8.3).
     *
     * @param cq   the completion queue
     * @param wc   reused for the result
     * @param what the operation, for the messages
     * @return {@code wc}, holding a successful completion
     * @throws InterruptedException  when interrupted while waiting
     * @throws IllegalStateException when nothing completes within
     *                               {@value #COMPLETION_TIMEOUT_SECONDS} s or the completion failed
     */
    public static WorkCompletion await(CompletionQueue cq, WorkCompletion wc, String what) throws InterruptedException {
        if (!cq.poll(wc, COMPLETION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException(what + ": no completion within " + COMPLETION_TIMEOUT_SECONDS + " s");
        }
        if (wc.status() != WorkCompletionStatus.SUCCESS) {
            throw new IllegalStateException(what + " failed: " + wc.status() + terminateOf(wc.queuePair()));
        }
        return wc;
    }

    /**
     * The Terminate a queue pair sent or received, for an error message.
     *
     * @param qp the queue pair (null gives an empty string)
     * @return {@code "; Terminate ..."} or an empty string when there was none
     */
    public static String terminateOf(QueuePair qp) {
        TerminateMessage t = qp == null ? null : qp.query().terminateMessage();
        return t == null ? "" : "; " + (t.locallyGenerated() ? "sent" : "received") + " Terminate " + t.describe();
    }

    /**
     * Fails the example with a message unless the condition holds.
     *
     * @param condition what must be true
     * @param message   what went wrong otherwise
     * @throws IllegalStateException when the condition is false
     */
    public static void check(boolean condition, String message) {
        if (!condition) {
            throw new IllegalStateException(message);
        }
    }
}
