package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jrnic.wire.IwarpError;
import io.jrnic.wire.TerminateLayer;
import org.junit.jupiter.api.Test;

/** The Terminate classification of MPA errors (RFC 5040 §4.8, RFC 5044 §8, RFC 6580 §3). */
class MpaErrorTest {

    @Test
    void codesOfRfc5044And6581RoundTrip() {
        for (MpaError e : MpaError.values()) {
            assertThat(MpaError.fromCode(e.errorCode())).isSameAs(e);
            assertThat(e.terminateCodeBits()).isEqualTo(0x2000 | e.errorCode());
        }
        assertThat(MpaError.fromCode(2)).isSameAs(MpaError.CRC_MISMATCH);
        assertThat(MpaError.fromCode(0)).isNull();
        assertThat(MpaError.fromCode(8)).isNull();
    }

    @Test
    void deframeFaultsCarryTheirMpaError() {
        assertThat(DeframeFault.CRC_MISMATCH.mpaError()).isSameAs(MpaError.CRC_MISMATCH);
        assertThat(DeframeFault.MARKER_MISMATCH.mpaError()).isSameAs(MpaError.MARKER_MISMATCH);
        assertThat(DeframeFault.ULPDU_TOO_LONG.mpaError()).isNull();
        assertThat(DeframeFault.ULPDU_TOO_LONG.layer()).isEqualTo(TerminateLayer.DDP);
    }

    @Test
    void terminateCodeBitsPutLayerTypeAndCodeInPlace() {
        // RFC 5040 §4.8 Figure 7: Layer (4 bits) | EType (4 bits) | Error Code (8 bits).
        IwarpError invalidStag = new IwarpError() {
            @Override
            public TerminateLayer layer() {
                return TerminateLayer.DDP;
            }

            @Override
            public int errorType() {
                return 1;
            }

            @Override
            public int errorCode() {
                return 0;
            }

            @Override
            public String toString() {
                return "invalid STag";
            }
        };
        assertThat(invalidStag.terminateCodeBits()).isEqualTo(0x1100);
        assertThat(invalidStag.describe()).isEqualTo("DDP 1/1/0x00 invalid STag");
        assertThat(MpaError.INSUFFICIENT_IRD.describe()).isEqualTo("LLP 2/0/0x06 INSUFFICIENT_IRD");
    }

    @Test
    void layersFromTheWire() {
        assertThat(TerminateLayer.fromWire(0)).isEqualTo(TerminateLayer.RDMAP);
        assertThat(TerminateLayer.fromWire(1)).isEqualTo(TerminateLayer.DDP);
        assertThat(TerminateLayer.fromWire(2)).isEqualTo(TerminateLayer.LLP);
        for (TerminateLayer l : TerminateLayer.values()) {
            assertThat(TerminateLayer.fromWire(l.wireValue())).isSameAs(l);
        }
        assertThatThrownBy(() -> TerminateLayer.fromWire(3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("0x3");
    }
}
