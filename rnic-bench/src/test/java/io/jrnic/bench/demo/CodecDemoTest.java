package io.jrnic.bench.demo;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class CodecDemoTest {

    @Test
    void placesTheWriteAndDetectsTheFlippedByte() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = new CodecDemo(new PrintStream(bytes, true, StandardCharsets.UTF_8)).run(7);
        String output = bytes.toString(StandardCharsets.UTF_8);

        assertThat(status).isZero();
        assertThat(output)
                .contains("negotiated: outcome ACCEPT, revision 2, CRC on")
                .contains("equal to what was sent: true")
                .contains("receiver detected: LLP 2/0/0x02 CRC_MISMATCH")
                // wire-format.md §6: Terminate for an MPA CRC error, QN 2, MSN 1, control 20 02 00 00
                .contains("41470000000000000002000000010000000020020000")
                .contains("demo: all checks passed");
    }
}
