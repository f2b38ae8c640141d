package io.jrnic.core;

import io.jrnic.api.AsyncEventType;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.QpState;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.StagState;
import io.jrnic.api.TerminateMessage;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import io.jrnic.core.mem.SoftMemoryRegion;
import io.jrnic.core.mem.StagBinding;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * RFC 5040 §8.1.1 (6), R-SEC-016: once the ULP has revoked remote access to an STag, the RNIC no
 * longer modifies the buffer, not even with a segment validated just before. The placement fence
 * ({@link StagBinding.Fence}) is checked on its own (the Dekker handshake, the revoker waiting for
 * a placement in progress, a revocation on the placing thread) and end to end: a stream of RDMA
 * Writes into a region that the responder deregisters or invalidates from another thread while
 * the event loop places; the memory, overwritten with a sentinel once the revocation returned,
 * must never change again, and the writer gets the invalid-STag Terminate.
 */
class RxRevokeFenceTest extends EngineFixture {
    private static final int REGION = 256 * 1024;
    private static final byte SENTINEL = (byte) 0xEE;

    @Test
    void placementStartedAfterRevocationPlacesNothing_R_SEC_016() {
        Side[] s = pair(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = s[1].region(4096, RIGHTS);
        SoftMemoryRegion entry = (SoftMemoryRegion) mr;
        StagBinding validated = entry.binding;
        mr.close();
        // validated before the revocation, placing after it: the re-check refuses and holds nothing
        assertThat(entry.fence.enter(entry, validated)).isFalse();
        assertThat(entry.fence.active()).isZero();
    }

    @Test
    void revocationWaitsForThePlacementInProgress_R_SEC_016() throws Exception {
        Side[] s = pair(MemoryLinkPair.Options.defaults());
        MemoryRegion mr = s[1].region(4096, RIGHTS);
        SoftMemoryRegion entry = (SoftMemoryRegion) mr;
        MemorySegment memory = s[1].memory(mr);
        AtomicBoolean revokeReturned = new AtomicBoolean();
        AtomicBoolean placedAfterReturn = new AtomicBoolean();
        StagBinding validated = entry.binding;
        assertThat(entry.fence.enter(entry, validated)).isTrue();
        Thread revoker = Thread.ofPlatform().start(() -> {
            mr.close();
            revokeReturned.set(true);
        });
        // the revoker has swapped the binding and now waits for this placement
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            while (entry.binding == validated) {
                Thread.onSpinWait();
            }
        });
        for (int i = 0; i < 100_000; i++) {
            Thread.onSpinWait(); // give a revoker that does not wait every chance to return first
        }
        placedAfterReturn.set(revokeReturned.get());
        memory.set(ValueLayout.JAVA_BYTE, 0, (byte) 0x42); // the placement's last byte
        entry.fence.exit();
        revoker.join(10_000);
        assertThat(revokeReturned).isTrue();
        assertThat(placedAfterReturn).as("revocation returned while a placement was writing").isFalse();
        assertThat(entry.binding.state()).isEqualTo(StagState.FREE);
    }

    /**
     * An FPDU half placed straight into a region (the link read its first part into the memory),
     * then the region is revoked -- from another thread, or on the placing event loop itself --
     * and only then does the rest of the FPDU arrive: the revocation did not wait for the rest,
     * and the rest lands nowhere. The guard is held per read, never across reads.
     */
    @ParameterizedTest(name = "revoke on the event loop: {0}")
    @ValueSource(booleans = {false, true})
    void revocationBetweenTwoReadsOfOneFpduStopsItsRest_R_SEC_016(boolean onTheLoop) throws Exception {
        Side a = withRawPeer(MemoryLinkPair.Options.defaults().withMulpdu(16384).withMaxChunk(1000));
        int size = 16_000;
        MemoryRegion sink = a.region(size, RIGHTS);
        MemorySegment dst = a.memory(sink);
        byte[] payload = new byte[size];
        java.util.Arrays.fill(payload, (byte) 0x33);
        byte[] wire = raw.endpoint.frame(Wire.tagged(Wire.WRITE, true, sink.stag(), a.base(sink), payload));
        int cut = 2 + 14 + 5000; // MPA length, DDP header, the first 5000 payload bytes
        raw.endpoint.injectWire(java.util.Arrays.copyOfRange(wire, 0, cut));
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            while (dst.get(ValueLayout.JAVA_BYTE, 4999) != 0x33) {
                Thread.onSpinWait();
            }
        });
        assertThat(dst.get(ValueLayout.JAVA_BYTE, 5000)).isZero();
        if (onTheLoop) {
            a.engine.executor.execute(sink::close);
            link.settle();
        } else {
            sink.close();
        }
        assertThat(((SoftMemoryRegion) sink).fence.active()).isZero();
        dst.fill(SENTINEL); // from here on nothing may touch the buffer
        raw.endpoint.injectWire(java.util.Arrays.copyOfRange(wire, cut, wire.length));
        awaitState(a, QpState.ERROR);
        link.settle();
        assertThat(dst.mismatch(MemorySegment.ofArray(new byte[size]).fill(SENTINEL))).isEqualTo(-1L);
        assertThat(a.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1100);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
    }

    /** 0: deregistration (Deallocate STag), 1: Invalidate Local STag on the responder's SQ. */
    @ParameterizedTest(name = "revoke {0}, direct placement {1}")
    @ValueSource(ints = {0, 1, 2, 3})
    void noByteLandsAfterTheRevocationReturned_R_SEC_016_R_SEC_010(int variant) {
        boolean invalidate = (variant & 1) != 0;
        boolean direct = (variant & 2) != 0;
        // direct: FPDUs of 16 KiB fed in chunks of at most 1000 bytes, so the link places most
        // payload straight into the region across several reads; else whole FPDUs copied by the engine
        MemoryLinkPair.Options options = direct
                ? MemoryLinkPair.Options.defaults().withMulpdu(16384).withMaxChunk(1000)
                : MemoryLinkPair.Options.defaults().withMaxChunk(65536);
        Side[] s = pair(options);
        Side a = s[0];
        Side b = s[1];
        MemoryRegion source = a.region(REGION, RIGHTS);
        MemorySegment src = a.memory(source);
        src.fill((byte) 0x11);
        MemoryRegion sink = b.region(REGION, RIGHTS);
        MemorySegment dst = b.memory(sink);
        int sinkStag = sink.stag();
        long sinkBase = b.base(sink);
        int writes = 60;
        for (int i = 0; i < writes; i++) {
            a.qp.postSend(new SendWorkRequest().wrId(i).opcode(Opcode.RDMA_WRITE)
                    .sge(source.stag(), a.base(source), REGION).remote(sink.stag(), b.base(sink)));
        }
        // revoke while the stream is being placed: as soon as the first bytes are in
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            while (dst.get(ValueLayout.JAVA_BYTE, 0) == 0) {
                Thread.onSpinWait();
            }
        });
        if (invalidate) {
            b.qp.postSend(new SendWorkRequest().wrId(99).opcode(Opcode.INVALIDATE_LOCAL_STAG)
                    .invalidateStag(sink.stag()));
            assertThat(sink.query().state()).isEqualTo(StagState.INVALID);
        } else {
            sink.close();
        }
        dst.fill(SENTINEL); // from here on nothing may touch the buffer
        // one more Write after the revocation: the Terminate comes even if the stream was done. If the
        // stream was not done, the responder's Terminate may already have put the writer in Terminate,
        // where PostSQ is refused (V-QPS-49): then the Writes in flight are the ones that end it
        boolean extraPosted = true;
        try {
            a.qp.postSend(new SendWorkRequest().wrId(writes).opcode(Opcode.RDMA_WRITE)
                    .sge(source.stag(), a.base(source), 64).remote(sinkStag, sinkBase));
        } catch (VerbsException e) {
            assertThat(e.status()).isEqualTo(VerbsStatus.INVALID_QP_STATE);
            extraPosted = false;
        }
        awaitState(b, QpState.ERROR);
        awaitState(a, QpState.ERROR);
        link.settle();
        for (long at = 0; at < REGION; at++) {
            if (dst.get(ValueLayout.JAVA_BYTE, at) != SENTINEL) {
                throw new AssertionError("byte " + at + " was written after the revocation returned");
            }
        }
        // the responder terminated with RFC 5041 §7.1 "invalid STag" (1/1/0x00) ...
        assertThat(b.eventTypes()).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
        assertThat(b.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1100);
        // ... which the writer received: its later Writes are flushed, never reported successful
        TerminateMessage received = a.qp.query().terminateMessage();
        assertThat(received.terminateControl()).isEqualTo(0x1100);
        assertThat(received.locallyGenerated()).isFalse();
        assertThat(a.eventTypes()).contains(AsyncEventType.TERMINATE_MESSAGE_RECEIVED);
        List<WorkCompletion> wcs = completions(a, extraPosted ? writes + 1 : writes);
        if (extraPosted) {
            // the Write posted after the revocation never succeeds: REMOTE_TERMINATION_ERROR when it was
            // the request in progress as the Terminate arrived (all earlier Writes already sent), else FLUSHED
            WorkCompletionStatus last = wcs.stream().filter(wc -> wc.wrId() == writes).findFirst().orElseThrow().status();
            assertThat(last).isIn(WorkCompletionStatus.FLUSHED, WorkCompletionStatus.REMOTE_TERMINATION_ERROR);
        }
    }

    @Test
    void readResponseIntoADeregisteredSinkPlacesNothingMore_R_SEC_016() {
        Side a = withRawPeer(MemoryLinkPair.Options.defaults().withMulpdu(16384).withMaxChunk(1000));
        int size = 2 * 1024 * 1024;
        int segment = 16384 - 14;
        MemoryRegion sink = a.region(size, RIGHTS);
        MemorySegment dst = a.memory(sink);
        int sinkStag = sink.stag();
        long sinkBase = a.base(sink);
        a.qp.postSend(new SendWorkRequest().wrId(1).opcode(Opcode.RDMA_READ).sge(sink.stag(), a.base(sink), size)
                .remote(0x4401, 0));
        await(() -> raw.received.size() == 1, "the Read Request");
        // the responder streams all but the last segment of the Read Response ...
        byte[] part = new byte[segment];
        java.util.Arrays.fill(part, (byte) 0x22);
        int segments = size / segment;
        byte[][] response = new byte[segments][];
        for (int i = 0; i < segments; i++) {
            response[i] = Wire.tagged(Wire.READ_RESPONSE, false, sink.stag(), a.base(sink) + (long) i * segment, part);
        }
        raw.send(response);
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            while (dst.get(ValueLayout.JAVA_BYTE, 0) == 0) {
                Thread.onSpinWait();
            }
        });
        sink.close(); // ... while the requester revokes its sink, racing the placement
        dst.fill(SENTINEL);
        long placed = (long) segments * segment;
        raw.send(Wire.tagged(Wire.READ_RESPONSE, true, sinkStag, sinkBase + placed,
                new byte[(int) (size - placed)]));
        awaitState(a, QpState.ERROR);
        link.settle();
        assertThat(dst.mismatch(MemorySegment.ofArray(new byte[size]).fill(SENTINEL))).isEqualTo(-1L);
        assertThat(a.qp.query().terminateMessage().terminateControl()).isEqualTo(0x1100);
        assertThat(a.eventTypes()).containsExactly(AsyncEventType.TAGGED_INVALID_STAG);
        WorkCompletion wc = completions(a, 1).getFirst();
        assertThat(wc.wrId()).isEqualTo(1);
        assertThat(wc.status()).isNotEqualTo(WorkCompletionStatus.SUCCESS);
    }
}
