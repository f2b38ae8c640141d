package io.jrnic.bench.rping;

import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.CrcMode;
import java.time.Duration;

/**
 * The command line of {@code rping}, parsed by hand in the manner of rping's {@code getopt} string
 * {@code "a:I:Pp:C:S:t:scvVdq"}: single-letter flags may be clustered ({@code -vV}), option values may be
 * attached ({@code -p7174}) or follow ({@code -p 7174}). Our own switches are long options.
 *
 * <pre>
 *   -s            server (listen)              -c            client (connect to -a)
 *   -a addr       server: bind address (default 0.0.0.0); client: the server (required)
 *   -p port       port (default 7174)          -C count      iterations (client; default 0 = forever,
 *                                                            loopback: 10)
 *   -S size       message size, 26..65535 (default 64)
 *   -v            print the ping data          -V            verify the echoed data (client)
 *   -d            debug output                 -P            persistent server (one connection after another)
 *   --crc         ask for MPA CRCs (C=1); without it C=0 and CRCs are on only if the peer asks
 *   --markers     ask for and accept MPA markers (siw refuses them)
 *   --pause-ms n  client: pause between the MPA Reply and the first FPDU (default 100, siw's accept race)
 *   --setup-timeout-s n  bound of each MPA setup wait, e.g. a listener waiting for the Request (default 10)
 * </pre>
 *
 * Neither {@code -s} nor {@code -c}: loopback mode, a client and a non-persistent server in one
 * process over 127.0.0.1 (port {@code -p} if given, else an ephemeral one).
 *
 * <p>Thread safety: immutable after {@link #parse}.
 */
public final class RpingOptions {

    /** rping's default port. */
    public static final int DEFAULT_PORT = 7174;
    /** rping's default message size. */
    public static final int DEFAULT_SIZE = 64;
    /** Smallest size: room for {@code "rdma-ping-2147483647: "} and its NUL, as rping computes it (26). */
    public static final int MIN_SIZE = 26;
    /** Largest size: rping's {@code RPING_BUFSIZE - 1}. */
    public static final int MAX_SIZE = 65535;
    /** Pings of the loopback demo when {@code -C} is not given (rping's own default, forever, suits no demo). */
    public static final int LOOPBACK_COUNT = 10;
    /** Default pause before the first FPDU toward a siw responder (shared/interop/README.md, accept race). */
    public static final int DEFAULT_PAUSE_MS = 100;

    /** Default bound of every wait of MPA connection setup ({@link ConnectionSettings}' default). */
    public static final int DEFAULT_SETUP_TIMEOUT_SECONDS = 10;

    /** What the process does. */
    public enum Mode {
        /** {@code -s}. */
        SERVER,
        /** {@code -c}. */
        CLIENT,
        /** Neither: client and server over loopback in one process. */
        LOOPBACK
    }

    private Mode mode = Mode.LOOPBACK;
    private String address;
    private int port = DEFAULT_PORT;
    private boolean portGiven;
    private int count;
    private boolean countGiven;
    private int size = DEFAULT_SIZE;
    private boolean verbose;
    private boolean validate;
    private boolean debug;
    private boolean persistent;
    private boolean crc;
    private boolean markers;
    private int pauseMs = DEFAULT_PAUSE_MS;
    private int setupTimeoutSeconds = DEFAULT_SETUP_TIMEOUT_SECONDS;

    private RpingOptions() {
    }

    /**
     * Parses the arguments after the command name.
     *
     * @param args the arguments
     * @return the options
     * @throws IllegalArgumentException naming the offending argument (a usage error)
     */
    public static RpingOptions parse(String... args) {
        RpingOptions o = new RpingOptions();
        boolean server = false;
        boolean client = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.startsWith("--")) {
                switch (arg) {
                    case "--crc" -> o.crc = true;
                    case "--markers" -> o.markers = true;
                    case "--pause-ms", "--setup-timeout-s" -> {
                        if (i + 1 >= args.length) {
                            throw new IllegalArgumentException("option " + arg + " needs a value");
                        }
                        int value = number(arg, args[++i]);
                        if (arg.equals("--pause-ms")) {
                            if (value < 0) {
                                throw new IllegalArgumentException("Invalid pause " + value + " ms");
                            }
                            o.pauseMs = value;
                        } else {
                            if (value < 1) {
                                throw new IllegalArgumentException("Invalid setup timeout " + value + " s");
                            }
                            o.setupTimeoutSeconds = value;
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown option " + arg);
                }
                continue;
            }
            if (arg.length() < 2 || arg.charAt(0) != '-') {
                throw new IllegalArgumentException("unexpected argument '" + arg + "'");
            }
            for (int k = 1; k < arg.length(); k++) {
                char flag = arg.charAt(k);
                switch (flag) {
                    case 's' -> server = true;
                    case 'c' -> client = true;
                    case 'v' -> o.verbose = true;
                    case 'V' -> o.validate = true;
                    case 'd' -> o.debug = true;
                    case 'P' -> o.persistent = true;
                    case 'a', 'p', 'C', 'S' -> {
                        String value;
                        if (k + 1 < arg.length()) {
                            value = arg.substring(k + 1);
                        } else if (i + 1 < args.length) {
                            value = args[++i];
                        } else {
                            throw new IllegalArgumentException("option -" + flag + " needs a value");
                        }
                        o.value(flag, value);
                        k = arg.length();
                    }
                    default -> throw new IllegalArgumentException("unknown option -" + flag);
                }
            }
        }
        if (server && client) {
            throw new IllegalArgumentException("-s and -c exclude each other");
        }
        o.mode = server ? Mode.SERVER : client ? Mode.CLIENT : Mode.LOOPBACK;
        if (o.mode == Mode.LOOPBACK && !o.countGiven) {
            o.count = LOOPBACK_COUNT; // a demo ends by itself
        }
        if (o.mode == Mode.CLIENT && o.address == null) {
            throw new IllegalArgumentException("client needs the server's address: -a addr");
        }
        if (o.persistent && o.mode != Mode.SERVER) {
            throw new IllegalArgumentException("-P is a server option (-s)");
        }
        return o;
    }

    private void value(char flag, String value) {
        switch (flag) {
            case 'a' -> address = value;
            case 'p' -> {
                port = number("-p", value);
                portGiven = true;
                if (port < 0 || port > 65535) {
                    throw new IllegalArgumentException("Invalid port " + port);
                }
            }
            case 'C' -> {
                count = number("-C", value);
                countGiven = true;
                if (count < 0) {
                    throw new IllegalArgumentException("Invalid count " + count);
                }
            }
            case 'S' -> {
                size = number("-S", value);
                if (size < MIN_SIZE || size > MAX_SIZE) {
                    throw new IllegalArgumentException("Invalid size " + size + " (valid range is " + MIN_SIZE + " to "
                            + MAX_SIZE + ")");
                }
            }
            default -> throw new IllegalStateException("no value option -" + flag);
        }
    }

    private static int number(String option, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("option " + option + " needs a number, was '" + value + "'");
        }
    }

    /**
     * The MPA settings these options give: {@link ConnectionSettings#linuxSiw()} (revision 2 with the
     * RFC 6581 IRD/ORD words, private data up to 256 bytes, FPDUs of one Ethernet segment), the CRC
     * bit from {@code --crc}, markers from {@code --markers} (asked for and accepted, or neither) and
     * the first-FPDU pause from {@code --pause-ms}.
     *
     * @return new settings
     */
    public ConnectionSettings settings() {
        return ConnectionSettings.linuxSiw()
                .crc(crc ? CrcMode.OPTIONAL : CrcMode.OFF)
                .markers(markers, markers)
                .firstFpduDelay(Duration.ofMillis(pauseMs))
                .setupTimeout(Duration.ofSeconds(setupTimeoutSeconds));
    }

    /** {@return server, client or loopback} */
    public Mode mode() {
        return mode;
    }

    /** {@return the value of {@code -a}, or null when not given} */
    public String address() {
        return address;
    }

    /** {@return the value of {@code -p} or 7174} */
    public int port() {
        return port;
    }

    /** {@return whether {@code -p} was given (loopback mode uses an ephemeral port otherwise)} */
    public boolean portGiven() {
        return portGiven;
    }

    /** {@return the value of {@code -C}, 0 for forever} */
    public int count() {
        return count;
    }

    /** {@return the value of {@code -S}} */
    public int size() {
        return size;
    }

    /** {@return the value of {@code -v}} */
    public boolean verbose() {
        return verbose;
    }

    /** {@return the value of {@code -V}} */
    public boolean validate() {
        return validate;
    }

    /** {@return the value of {@code -d}} */
    public boolean debug() {
        return debug;
    }

    /** {@return the value of {@code -P}} */
    public boolean persistent() {
        return persistent;
    }

    /** {@return the value of {@code --crc}} */
    public boolean crc() {
        return crc;
    }

    /** {@return the value of {@code --markers}} */
    public boolean markers() {
        return markers;
    }

    /** {@return the value of {@code --setup-timeout-s}} */
    public int setupTimeoutSeconds() {
        return setupTimeoutSeconds;
    }

    /** {@return the value of {@code --pause-ms}} */
    public int pauseMs() {
        return pauseMs;
    }
}
