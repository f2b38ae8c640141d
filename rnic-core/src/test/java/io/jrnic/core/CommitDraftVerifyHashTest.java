package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AddressType;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.MemoryWindow;
import io.jrnic.api.QpState;
import io.jrnic.api.QueuePairConfig;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerifyHash;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Verify hash bound to a region at registration (draft-talpey-rdma-commit-01 §2.4, §3.1.2;
 * C-VERIFY-002, C-ATTR-004): regions with different algorithms verified end to end, the exact
 * Verify Responses and Terminates against a raw peer, and every expected hash computed here
 * independently with the JDK's {@code MessageDigest} and {@code Mac}.
 */
class CommitDraftVerifyHashTest extends EngineFixture {
    private static final int VERIFIABLE = EngineFixture.RIGHTS | AccessRights.VERIFIABLE;
    private static final byte[] KEY = "jrnic verify key".getBytes(StandardCharsets.US_ASCII);

    private Side a;

    @Override
    QueuePairConfig qpConfig(Side s) {
        return super.qpConfig(s).privileged(true); // Fast-Register needs a privileged QP (V-MR-67)
    }

    private static byte[] digest(String algorithm, byte[] data) throws GeneralSecurityException {
        return MessageDigest.getInstance(algorithm).digest(data);
    }

    private static byte[] mac(String algorithm, byte[] key, byte[] data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance(algorithm);
        mac.init(new SecretKeySpec(key, algorithm));
        return mac.doFinal(data);
    }

    private static MemoryRegion region(Side s, int size, VerifyHash hash) {
        MemorySegment m = s.rnic.allocateMemory(size, 8);
        return s.pd.registerMemory(m, VERIFIABLE, 0, AddressType.VA_BASED, m.address(), true, hash);
    }

    private static byte[] verifyRequest(int msn, int stag, int length, long to, byte[] hash) {
        ByteBuffer b = ByteBuffer.allocate(16 + hash.length).putInt(stag).putInt(length).putLong(to).put(hash);
        return Wire.untagged(0xE, true, 0, 1, msn, 0, b.array());
    }

    private static String verifyResponse(int msn, byte[] hash) {
        return "41 4f 00000000 00000003 " + String.format("%08x", msn) + " 00000000 " + hex(hash);
    }

    private byte[] awaitTerminate() {
        await(() -> !raw.received.isEmpty(), "the Terminate");
        awaitState(a, QpState.ERROR);
        assertThat(raw.received).hasSize(1);
        return raw.received.getFirst();
    }

    // ---- end to end --------------------------------------------------------------------------

    @Test
    void regionsWithSha512AndHmacSha256VerifyEndToEnd_C_VERIFY_002_C_ATTR_004() throws Exception {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side req = p[0];
        Side rsp = p[1];
        MemoryRegion sha512 = region(rsp, 8192, VerifyHash.of("SHA-512"));
        MemoryRegion hmac = region(rsp, 8192, VerifyHash.of("HmacSHA256", KEY));
        fill(rsp.memory(sha512), 21);
        fill(rsp.memory(hmac), 22);
        byte[] range512 = bytes(rsp.memory(sha512), 100, 5000);
        byte[] rangeHmac = bytes(rsp.memory(hmac), 0, 8192);
        byte[] expected512 = digest("SHA-512", range512);
        byte[] expectedHmac = mac("HmacSHA256", KEY, rangeHmac);
        MemoryRegion sinks = req.region(256, EngineFixture.RIGHTS);
        long sink = req.base(sinks);
        // a scrub of each (the response is the region's hash), then a compare with the expected hash
        req.qp.postSend(new SendWorkRequest().wrId(1).verify(sha512.stag(), rsp.base(sha512) + 100, 5000, null)
                .sge(sinks.stag(), sink, 64));
        req.qp.postSend(new SendWorkRequest().wrId(2).verify(hmac.stag(), rsp.base(hmac), 8192, null)
                .sge(sinks.stag(), sink + 64, 64));
        req.qp.postSend(new SendWorkRequest().wrId(3).verify(sha512.stag(), rsp.base(sha512) + 100, 5000, expected512)
                .sge(sinks.stag(), sink + 128, 64));
        req.qp.postSend(new SendWorkRequest().wrId(4).verify(hmac.stag(), rsp.base(hmac), 8192, expectedHmac)
                .sge(sinks.stag(), sink + 192, 16)); // a short sink takes the leading bytes
        List<WorkCompletion> wcs = completions(req, 4);
        assertThat(wcs).extracting(WorkCompletion::wrId).containsExactly(1L, 2L, 3L, 4L);
        assertThat(wcs).extracting(WorkCompletion::status).containsOnly(WorkCompletionStatus.SUCCESS);
        MemorySegment m = req.memory(sinks);
        assertThat(bytes(m, 0, 64)).isEqualTo(expected512);
        assertThat(bytes(m, 64, 32)).isEqualTo(expectedHmac);
        assertThat(bytes(m, 96, 32)).containsOnly(0); // a 32-byte response writes 32 bytes
        assertThat(bytes(m, 128, 64)).isEqualTo(expected512);
        assertThat(bytes(m, 192, 16)).isEqualTo(Arrays.copyOf(expectedHmac, 16));
        assertThat(bytes(m, 208, 48)).containsOnly(0);
        assertThat(req.qp.query().state()).isEqualTo(QpState.RTS);
        assertThat(rsp.qp.query().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void mismatchUnderTheRegionsKeyedHashTerminates_C_VERIFY_002_C_VERIFY_014() throws Exception {
        Side[] p = pair(MemoryLinkPair.Options.defaults());
        Side req = p[0];
        Side rsp = p[1];
        MemoryRegion hmac = region(rsp, 4096, VerifyHash.of("HmacSHA256", KEY));
        fill(rsp.memory(hmac), 23);
        byte[] range = bytes(rsp.memory(hmac), 0, 4096);
        req.qp.postSend(new SendWorkRequest().wrId(6).verify(hmac.stag(), rsp.base(hmac), 4096,
                mac("HmacSHA256", KEY, range)));
        assertThat(completions(req, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        // the right algorithm with another key: same length, different bytes
        byte[] otherKey = mac("HmacSHA256", "another key".getBytes(StandardCharsets.US_ASCII), range);
        req.qp.postSend(new SendWorkRequest().wrId(7).verify(hmac.stag(), rsp.base(hmac), 4096, otherKey));
        awaitState(rsp, QpState.ERROR);
        awaitState(req, QpState.ERROR);
        List<WorkCompletion> wcs = completions(req, 2);
        assertThat(wcs.get(1).wrId()).isEqualTo(7);
        // C-FLUSH-052: the requester is told by the status of the Verify the Terminate ended (V-ERR-46)
        assertThat(wcs.get(1).status()).isEqualTo(WorkCompletionStatus.REMOTE_TERMINATION_ERROR);
        assertThat(rsp.eventTypes()).containsExactly(AsyncEventType.INVALID_READ_REQUEST);
        assertThat(req.qp.query().terminateMessage().terminateControl()).isEqualTo(0x02FF);
    }

    // ---- responder: exact bytes against a raw peer -------------------------------------------

    @Test
    void responseCarriesTheRegionsOutputLength_C_VERIFY_002_C_VERIFY_015() throws Exception {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion sha3 = region(a, 4096, VerifyHash.of("SHA3-256"));
        byte[] longKey = new byte[100]; // longer than HmacSHA256's 64-byte block: hashed first (RFC 2104 §2)
        Arrays.fill(longKey, (byte) 0x5A);
        MemoryRegion truncated = region(a, 4096, VerifyHash.of("HmacSHA512", longKey, 20));
        fill(a.memory(sha3), 31);
        fill(a.memory(truncated), 32);
        byte[] sha3Hash = digest("SHA3-256", bytes(a.memory(sha3), 10, 1000));
        byte[] hmac20 = Arrays.copyOf(mac("HmacSHA512", longKey, bytes(a.memory(truncated), 0, 4096)), 20);
        raw.send(verifyRequest(1, sha3.stag(), 1000, a.base(sha3) + 10, new byte[0]),
                verifyRequest(2, truncated.stag(), 4096, a.base(truncated), hmac20),
                verifyRequest(3, truncated.stag(), 4096, a.base(truncated), new byte[0]));
        await(() -> raw.received.size() == 3, "three Verify Responses");
        assertBytes(raw.received.get(0), verifyResponse(1, sha3Hash));
        assertBytes(raw.received.get(1), verifyResponse(2, hmac20));
        assertBytes(raw.received.get(2), verifyResponse(3, hmac20));
        assertThat(a.qp.query().state()).isEqualTo(QpState.RTS);
    }

    @Test
    void hmacWithALongKeyEqualsTheJdkMac_C_VERIFY_002() throws Exception {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        byte[] longKey = new byte[100];
        Arrays.fill(longKey, (byte) 0x3C);
        MemoryRegion hmac = region(a, 4096, VerifyHash.of("HmacSHA256", longKey));
        fill(a.memory(hmac), 33);
        byte[] expected = mac("HmacSHA256", longKey, bytes(a.memory(hmac), 0, 3000));
        raw.send(verifyRequest(1, hmac.stag(), 3000, a.base(hmac), expected));
        await(() -> raw.received.size() == 1, "the Verify Response");
        assertBytes(raw.received.getFirst(), verifyResponse(1, expected));
    }

    @Test
    void windowVerifiesWithItsRegionsHash_C_VERIFY_002_C_ATTR_004() throws Exception {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemorySegment m = a.rnic.allocateMemory(4096, 8);
        MemoryRegion mr = a.pd.registerMemory(m, VERIFIABLE | AccessRights.BIND_WINDOW, 0, AddressType.VA_BASED,
                m.address(), true, VerifyHash.of("HmacSHA384", KEY));
        fill(m, 36);
        MemoryWindow mw = a.pd.allocateWindow();
        int windowStag = mw.stagIndex() << 8 | 0x42;
        a.qp.postSend(new SendWorkRequest().wrId(9).bind(windowStag, mr.stag(), m.address() + 1000, 2000,
                AddressType.ZERO_BASED, AccessRights.REMOTE_READ | AccessRights.VERIFIABLE));
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        byte[] expected = mac("HmacSHA384", KEY, bytes(m, 1500, 500));
        raw.send(verifyRequest(1, windowStag, 500, 500, expected));
        await(() -> raw.received.size() == 1, "the Verify Response");
        assertBytes(raw.received.getFirst(), verifyResponse(1, expected));
    }

    @Test
    void expectedHashOfAnotherLengthThanTheRegionsIsUnspecified_C_VERIFY_002_C_VERIFY_013_AMB_49() throws Exception {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion sha512 = region(a, 4096, VerifyHash.of("SHA-512"));
        fill(a.memory(sha512), 34);
        // the right SHA-256 of the range is still the wrong length for a SHA-512 region
        byte[] request = verifyRequest(1, sha512.stag(), 64, a.base(sha512),
                digest("SHA-256", bytes(a.memory(sha512), 0, 64)));
        raw.send(request);
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 02ffc000 0020 " + hex(Arrays.copyOf(request, 18)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.INVALID_READ_REQUEST);
    }

    @Test
    void expectedHashLongerThanAnyHashIsUnspecified_C_VERIFY_013_AMB_45() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion sha512 = region(a, 4096, VerifyHash.of("SHA-512"));
        byte[] request = verifyRequest(1, sha512.stag(), 64, a.base(sha512),
                new byte[SendWorkRequest.MAX_HASH_LENGTH + 1]);
        raw.send(request);
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 02ffc000 0041 " + hex(Arrays.copyOf(request, 18)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.INVALID_READ_REQUEST);
    }

    // ---- requester: what it accepts of a Verify Response -------------------------------------

    @Test
    void requesterAcceptsAScrubResponseOfAnyHashLength_C_VERIFY_002() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion sink = a.region(64, EngineFixture.RIGHTS);
        a.qp.postSend(new SendWorkRequest().wrId(5).verify(0x0000_0301, 0, 64, null).sge(sink.stag(), a.base(sink), 64));
        await(() -> raw.received.size() == 1, "the Verify Request");
        byte[] hash = new byte[48]; // e.g. a SHA-384 region at the peer
        Arrays.fill(hash, (byte) 0xA5);
        raw.send(Wire.untagged(0xF, true, 0, 3, 1, 0, hash));
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.wrId()).isEqualTo(5);
        assertThat(wc.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(bytes(a.memory(sink), 0, 48)).isEqualTo(hash);
        assertThat(bytes(a.memory(sink), 48, 16)).containsOnly(0);
    }

    @Test
    void requesterRefusesAResponseOfAnotherLengthThanItsExpectedHash_C_VERIFY_002_AMB_45() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        a.qp.postSend(new SendWorkRequest().wrId(6).verify(0x0000_0301, 0, 64, new byte[64]));
        await(() -> raw.received.size() == 1, "the Verify Request");
        raw.received.clear();
        byte[] response = Wire.untagged(0xF, true, 0, 3, 1, 0, new byte[32]);
        raw.send(response);
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 02ffc000 0020 " + hex(Arrays.copyOf(response, 18)));
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.INVALID_READ_REQUEST);
    }

    @Test
    void requesterRefusesAnEmptyResponse_C_VERIFY_002_AMB_45() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        a.qp.postSend(new SendWorkRequest().wrId(6).verify(0x0000_0301, 0, 64, null));
        await(() -> raw.received.size() == 1, "the Verify Request");
        raw.received.clear();
        byte[] response = Wire.untagged(0xF, true, 0, 3, 1, 0, new byte[0]);
        raw.send(response);
        assertBytes(awaitTerminate(), Wire.TERMINATE_HEADER + " 02ffc000 0000 " + hex(Arrays.copyOf(response, 18)));
    }

    // ---- registration ------------------------------------------------------------------------

    @Test
    void registrationsDefaultToSha256AndQueryShowsTheHash_C_VERIFY_002_C_ATTR_004() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion plain = a.region(4096, VERIFIABLE);
        assertThat(plain.query().verifyHash()).isEqualTo(VerifyHash.SHA_256);
        VerifyHash hmac = VerifyHash.of("HmacSHA256", KEY);
        MemoryRegion keyed = region(a, 4096, hmac);
        assertThat(keyed.query().verifyHash()).isEqualTo(hmac);
        MemoryRegion shared = a.pd.registerSharedMemory(keyed.stag(), VERIFIABLE, 1, AddressType.ZERO_BASED, 0);
        assertThat(shared.query().verifyHash()).isEqualTo(VerifyHash.SHA_256); // a registration of its own
        MemoryRegion shared512 = a.pd.registerSharedMemory(keyed.stag(), VERIFIABLE, 2, AddressType.ZERO_BASED, 0,
                VerifyHash.of("SHA-512"));
        assertThat(shared512.query().verifyHash().outputLength()).isEqualTo(64);
    }

    @Test
    void reregisterReplacesTheHashAndNullLeavesTheRegionAlone_C_VERIFY_002() {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = region(a, 4096, VerifyHash.of("SHA-512"));
        MemorySegment m = a.rnic.allocateMemory(4096, 8);
        assertThatThrownBy(() -> mr.reregister(a.pd, m, VERIFIABLE, 3, AddressType.VA_BASED, m.address(), true, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("verifyHash");
        assertThat(mr.query().verifyHash()).isEqualTo(VerifyHash.of("SHA-512")); // unchanged, still registered
        mr.reregister(a.pd, m, VERIFIABLE, 4, AddressType.VA_BASED, m.address(), true, VerifyHash.of("SHA3-512"));
        assertThat(mr.query().verifyHash()).isEqualTo(VerifyHash.of("SHA3-512"));
        mr.reregister(a.pd, m, VERIFIABLE, 5, AddressType.VA_BASED, m.address(), true);
        assertThat(mr.query().verifyHash()).isEqualTo(VerifyHash.SHA_256); // not given: the default
        assertThatThrownBy(() -> a.pd.registerMemory(m, VERIFIABLE, 0, AddressType.VA_BASED, m.address(), true, null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("verifyHash");
    }

    @Test
    void fastRegisterBindsTheHashOfItsWorkRequest_C_VERIFY_002() throws Exception {
        a = withRawPeer(MemoryLinkPair.Options.defaults());
        MemorySegment m = a.rnic.allocateMemory(4096, 4096);
        fill(m, 35);
        VerifyHash sha384 = VerifyHash.of("SHA-384");
        MemoryRegion mr = a.pd.allocateRegionStag(1, true);
        assertThat(mr.query().verifyHash()).isEqualTo(VerifyHash.SHA_256); // Invalid: the default
        int stag = (mr.stag() & ~0xFF) | 0x11;
        a.qp.postSend(new SendWorkRequest().wrId(8).fastRegister(stag, m, VERIFIABLE, AddressType.ZERO_BASED, 0)
                .verifyHash(sha384));
        assertThat(completions(a, 1).getFirst().status()).isEqualTo(WorkCompletionStatus.SUCCESS);
        assertThat(mr.query().verifyHash()).isEqualTo(sha384);
        byte[] expected = digest("SHA-384", bytes(m, 0, 4096));
        raw.send(verifyRequest(1, stag, 4096, 0, expected));
        await(() -> raw.received.size() == 1, "the Verify Response");
        assertBytes(raw.received.getFirst(), verifyResponse(1, expected));
    }

    @Test
    void workRequestWithoutAHashFastRegistersTheDefault_C_VERIFY_002() {
        SendWorkRequest wr = new SendWorkRequest().verifyHash(VerifyHash.of("SHA-512"));
        assertThat(wr.verifyHash()).isEqualTo(VerifyHash.of("SHA-512"));
        assertThat(wr.reset().verifyHash()).isNull();
    }
}
