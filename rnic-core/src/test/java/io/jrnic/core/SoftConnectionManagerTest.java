package io.jrnic.core;

import io.jrnic.api.ConnectionException;
import io.jrnic.api.CrcMode;
import io.jrnic.api.RtrType;
import io.jrnic.core.cm.SoftConnectionManager;
import io.jrnic.core.transport.SetupFailure;
import io.jrnic.mpa.MpaError;
import io.jrnic.mpa.NegotiationFailure;
import io.jrnic.mpa.RtrForm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/** The connection manager's mappings between the transport and MPA types and the API's mirrors of them. */
class SoftConnectionManagerTest {

    @ParameterizedTest
    @EnumSource(SetupFailure.Kind.class)
    void everySetupFailureKindMapsToTheReasonOfTheSameMeaning(SetupFailure.Kind kind) {
        ConnectionException e = SoftConnectionManager.failure(new SetupFailure(kind, null, null, null, null, -1, -1, null));
        assertThat(e.reason().name()).isEqualTo(kind.name());
        assertThat(e.terminateCode()).isEqualTo(-1);
        assertThat(e.getMessage()).contains(kind.name());
    }

    @Test
    void setupFailureDetailsReachTheException() {
        IOException cause = new IOException("refused");
        ConnectionException e = SoftConnectionManager.failure(new SetupFailure(SetupFailure.Kind.NEGOTIATION_FAILED,
                NegotiationFailure.NO_MATCHING_RTR, null, MpaError.NO_MATCHING_RTR, new byte[] {7}, 3, 2, cause));
        assertThat(e.terminateCode()).isEqualTo(0x2007); // RFC 6581 §9.2: MPA layer, code 7
        assertThat(e.peerPrivateData()).containsExactly(7);
        assertThat(e.peerIrd()).isEqualTo(3);
        assertThat(e.peerOrd()).isEqualTo(2);
        assertThat(e.getCause()).isSameAs(cause);
        assertThat(e.getMessage()).contains("NO_MATCHING_RTR");
    }

    @ParameterizedTest
    @EnumSource(CrcMode.class)
    void crcModesMapToTheMpaPolicies(CrcMode mode) {
        assertThat(SoftConnectionManager.crcPolicy(mode).name()).isEqualTo(mode.name());
    }

    @ParameterizedTest
    @EnumSource(RtrType.class)
    void rtrTypesRoundTrip(RtrType type) {
        RtrForm form = SoftConnectionManager.rtrForm(type);
        assertThat(form.name()).isEqualTo(type.name());
        assertThat(SoftConnectionManager.rtrType(form)).isEqualTo(type);
        assertThat(SoftConnectionManager.rtrTypes(form.flag())).containsExactly(type);
        assertThat(SoftConnectionManager.rtrTypes(RtrForm.ALL)).hasSize(3);
        assertThat(SoftConnectionManager.rtrType(null)).isNull();
    }
}
