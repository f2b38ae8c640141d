package io.jrnic.core;

import io.jrnic.api.TerminateMessage;
import io.jrnic.ddp.DdpError;
import io.jrnic.mpa.MpaError;
import io.jrnic.rdmap.IwarpErrors;
import io.jrnic.rdmap.RdmapError;
import io.jrnic.wire.IwarpError;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The API names the Terminate codes (RFC 6580 §3) without depending on the protocol modules, so
 * this checks that it names exactly what those modules register: every error of
 * {@link RdmapError}, {@link DdpError} and {@link MpaError} has a name, RDMAP ones the RFC 5040
 * Figure 9 name {@link RdmapError#description()} holds, and no other code is named.
 */
class TerminateNamesTest {

    private static boolean named(TerminateMessage m) {
        return !m.layerName().equals("Unassigned") && !m.errorTypeName().equals("Unassigned")
                && !m.errorCodeName().equals("Unassigned");
    }

    @Test
    void theApiNamesExactlyTheRegisteredErrors_V_TERM_16() {
        List<Integer> registered = new ArrayList<>();
        List<Integer> namedByApi = new ArrayList<>();
        for (int bits = 0; bits <= 0xFFFF; bits++) {
            // DDP error type 3 is reserved for the LLP with any code (RFC 5041 §7.2), no constant
            boolean reservedForLlp = bits >>> 8 == 0x13;
            if (IwarpErrors.fromCodeBits(bits) != null || reservedForLlp) {
                registered.add(bits);
            }
            if (named(new TerminateMessage(bits, false, null))) {
                namedByApi.add(bits);
            }
        }
        assertThat(namedByApi).isEqualTo(registered);
    }

    @Test
    void rdmapNamesAreThoseOfFigure9() {
        for (RdmapError e : RdmapError.values()) {
            TerminateMessage m = new TerminateMessage(e.terminateCodeBits(), false, null);
            String name = e.errorType() == RdmapError.TYPE_LOCAL_CATASTROPHIC ? m.errorTypeName() : m.errorCodeName();
            // RdmapError qualifies the two "Unspecified Error" rows by their type
            assertThat(e.description().replace(" protection", "").replace(" operation", ""))
                    .as(e.name()).isEqualToIgnoringCase(name);
        }
        Stream.<IwarpError>concat(Stream.of(DdpError.values()), Stream.of(MpaError.values())).forEach(e ->
                assertThat(new TerminateMessage(e.terminateCodeBits(), false, null).describe())
                        .as(e.toString()).startsWith(e.layer().name() + " "));
    }
}
