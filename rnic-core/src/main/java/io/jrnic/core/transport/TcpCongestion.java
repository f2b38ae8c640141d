package io.jrnic.core.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The TCP congestion control this machine gives new sockets, and whether it paces them: what decides
 * the default of {@link TransportConfig#segmentRule()}.
 *
 * <p>A pacing congestion control (BBR, in every version) spaces a socket's segments by its estimate
 * of the path's rate. Without the {@code fq} qdisc (loopback has none) TCP does it itself: a write
 * whose segment must wait arms a timer and leaves the rest to it. On loopback, writes of 65,536 bytes
 * ran at 2.0 GB/s under BBR and 7.8 GB/s under CUBIC (the Linux default), writes of at most the
 * 65,483-byte MSS at 5.8 and 7.5 ({@code tcp-write-probe}, docs/benchmarks.md, 2026-11-29): what a
 * write leaves past a segment costs a pacing round. CUBIC and the other loss-based controls do not
 * pace by themselves.
 *
 * <p>jrnic does not set a socket's congestion control, so its sockets get the system's. A connected
 * socket adopted from the application ({@code ConnectionManager.adopt}) may have been given another.
 *
 * <p>Thread safety: stateless; the system default is read once.
 */
final class TcpCongestion {
    /** Where Linux names the congestion control new sockets get. */
    static final Path SYSTEM_DEFAULT = Path.of("/proc/sys/net/ipv4/tcp_congestion_control");

    /** Whether the system's congestion control paces (read once, at first use). */
    static final boolean SYSTEM_PACES = paces(read(SYSTEM_DEFAULT));

    private TcpCongestion() {
    }

    /**
     * {@return the first line of a congestion control file, trimmed, or "" when it cannot be read
     * (not Linux, no procfs)}
     *
     * @param file the file
     */
    static String read(Path file) {
        try {
            return Files.readString(file).lines().findFirst().orElse("").strip();
        } catch (IOException | SecurityException e) {
            return "";
        }
    }

    /**
     * {@return whether sockets of this congestion control pace their own segments: BBR's versions
     * ("bbr", "bbr2", "bbr3")}
     *
     * @param name the congestion control's name as Linux gives it
     */
    static boolean paces(String name) {
        return name.startsWith("bbr");
    }
}
