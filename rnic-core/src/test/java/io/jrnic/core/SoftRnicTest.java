package io.jrnic.core;

import io.jrnic.api.AccessRights;
import io.jrnic.api.AsyncEvent;
import io.jrnic.api.AsyncEventType;
import io.jrnic.api.CompletionQueue;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.ProtectionDomain;
import io.jrnic.api.QueuePair;
import io.jrnic.api.RnicAttributes;
import io.jrnic.api.RnicConfig;
import io.jrnic.api.RnicExtension;
import io.jrnic.api.VerbsException;
import io.jrnic.api.VerbsStatus;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.EnumSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SoftRnicTest extends VerbsFixture {

    private static VerbsStatus statusOf(Runnable r) {
        try {
            r.run();
        } catch (VerbsException e) {
            return e.status();
        }
        throw new AssertionError("no VerbsException");
    }

    @Test
    void queryReportsEveryAttribute_V_RNIC_11_V_VERB_QueryRNIC_2_to_8() {
        RnicAttributes a = rnic.query();
        assertThat(a.vendorInfo()).contains("jrnic");
        assertThat(a.maxQps()).isEqualTo(1024);
        assertThat(a.maxQpWrs()).isEqualTo(16384);
        assertThat(a.maxSrqWrs()).isEqualTo(16384);
        assertThat(a.maxSendSge()).isGreaterThanOrEqualTo(4); // V-WR-46
        assertThat(a.maxWriteSge()).isGreaterThanOrEqualTo(1);
        assertThat(a.maxInlineData()).isEqualTo(256);
        assertThat(a.maxCqEntries()).isEqualTo(1 << 20);
        assertThat(a.maxCompletionHandlers()).isGreaterThanOrEqualTo(1);
        assertThat(a.maxMrSize()).isEqualTo((1L << 20) * 4096);
        assertThat(a.rnicInboundReads()).isZero(); // V-IRD-3: per QP, not shared
        assertThat(a.rnicOutboundReads()).isZero();
        assertThat(a.maxIrd()).isEqualTo(64);
        assertThat(a.maxOrd()).isEqualTo(64);
        assertThat(a.blockListMode()).isFalse();
        assertThat(a.pageSizes()).containsExactly(4096L);
        assertThat(a.srqSupported()).isTrue();
        assertThat(a.cqOverflowDetection()).isTrue();
        assertThat(a.atomicsSupported()).isTrue();
        assertThat(a.extensions()).contains(RnicExtension.ATOMICS, RnicExtension.RDMA_FLUSH, RnicExtension.RDMA_VERIFY);
    }

    @Test
    void extensionsCanBeRestricted() {
        try (SoftRnic r = SoftRnic.open(config().extensions(EnumSet.of(RnicExtension.IMMEDIATE_DATA)))) {
            assertThat(r.query().atomicsSupported()).isFalse();
            assertThat(r.query().maxInlineData()).isZero();
            assertThat(r.query().extensions()).containsExactly(RnicExtension.IMMEDIATE_DATA);
        }
    }

    @Test
    void openRnicCannotBeOpenedTwiceUntilClosed_V_RNIC_7() {
        RnicConfig c = config();
        SoftRnic first = SoftRnic.open(c);
        assertThat(statusOf(() -> SoftRnic.open(c))).isEqualTo(VerbsStatus.RNIC_IN_USE);
        first.close();
        SoftRnic again = SoftRnic.open(c);
        assertThat(again.isOpen()).isTrue();
        again.close();
    }

    @Test
    void theIoSettingsAreKeptFromTheConfigurationTheRnicWasOpenedWith() {
        RnicConfig c = config().ioMode(io.jrnic.api.IoMode.POLLING).ioTransport(io.jrnic.api.IoTransport.NIO)
                .pollingTakeover(java.time.Duration.ofMillis(7)).pollingSpin(java.time.Duration.ofNanos(3_000)).ioThreads(3);
        try (SoftRnic r = SoftRnic.open(c)) {
            c.ioMode(io.jrnic.api.IoMode.EVENT_LOOP); // a later change of the caller's object changes nothing
            assertThat(r.config().ioMode()).isEqualTo(io.jrnic.api.IoMode.POLLING);
            assertThat(r.config().ioTransport()).isEqualTo(io.jrnic.api.IoTransport.NIO);
            assertThat(r.config().pollingTakeover()).isEqualTo(java.time.Duration.ofMillis(7));
            assertThat(r.config().pollingSpin()).isEqualTo(java.time.Duration.ofNanos(3_000));
            assertThat(r.config().ioThreads()).isEqualTo(3);
        }
    }

    @Test
    void blockListModeIsRefused_V_RNIC_10_V_VERB_GEN_2() {
        assertThat(statusOf(() -> SoftRnic.open(config().blockListMode(true))))
                .isEqualTo(VerbsStatus.BLOCK_LIST_MODE_NOT_SUPPORTED);
    }

    @Test
    void invalidOpenModifiersAreRefused_V_VERB_OpenRNIC_3() {
        assertThat(statusOf(() -> SoftRnic.open(config().name(" ")))).isEqualTo(VerbsStatus.INVALID_MODIFIER);
        assertThat(statusOf(() -> SoftRnic.open(config().pageSize(3000)))).isEqualTo(VerbsStatus.INVALID_MODIFIER);
        assertThat(statusOf(() -> SoftRnic.open(config().sgeLimits(3, 1, 0)))).isEqualTo(VerbsStatus.INVALID_MODIFIER);
        assertThat(statusOf(() -> SoftRnic.open(config().readLimits(0, 1)))).isEqualTo(VerbsStatus.INVALID_MODIFIER);
    }

    @Test
    void closeFreesEverythingAndInvalidatesHandles_V_RNIC_12_V_RNIC_13() {
        MemorySegment mem = rnic.allocateMemory(8192, 4096);
        MemoryRegion mr = pd.registerMemory(mem, AccessRights.LOCAL);
        QueuePair qp = qp();
        ProtectionDomain pd2 = rnic.allocatePd();
        rnic.close();
        assertThat(rnic.isOpen()).isFalse();
        assertThat(mem.scope().isAlive()).isFalse(); // RNIC arena closed deterministically
        assertThat(statusOf(rnic::query)).isEqualTo(VerbsStatus.INVALID_RNIC_HANDLE);
        assertThat(statusOf(rnic::allocatePd)).isEqualTo(VerbsStatus.INVALID_RNIC_HANDLE);
        assertThat(statusOf(qp::query)).isEqualTo(VerbsStatus.INVALID_RNIC_HANDLE);
        assertThat(statusOf(mr::query)).isEqualTo(VerbsStatus.INVALID_RNIC_HANDLE);
        assertThat(statusOf(pd2::allocateWindow)).isEqualTo(VerbsStatus.INVALID_RNIC_HANDLE);
        rnic.close(); // idempotent
    }

    @Test
    void resourcesAreScopedToTheirRnic_V_RNIC_1() {
        try (SoftRnic other = SoftRnic.open(config())) {
            CompletionQueue foreign = other.createCq(4);
            assertThat(statusOf(() -> pd.createQueuePair(qpConfig().cqs(foreign, foreign))))
                    .isEqualTo(VerbsStatus.INVALID_CQ_HANDLE);
            ProtectionDomain otherPd = other.allocatePd();
            MemoryRegion mr = otherPd.allocateMemoryRegion(64, AccessRights.LOCAL, 0, io.jrnic.api.AddressType.VA_BASED);
            // same index space per RNIC: IDs need not be unique across RNICs
            assertThat(mr.stagIndex()).isGreaterThan(0);
        }
    }

    @Test
    void completionHandlerIdentifiersFollowSetCeh_V_VERB_SetCEH_3_V_VERB_SetCEH_5() {
        try (SoftRnic r = SoftRnic.open(config().cqLimits(4, 64, 2))) {
            int a = r.setCompletionEventHandler(0, (x, c) -> { });
            int b = r.setCompletionEventHandler(0, (x, c) -> { });
            assertThat(a).isNotEqualTo(b).isPositive();
            assertThat(statusOf(() -> r.setCompletionEventHandler(0, (x, c) -> { })))
                    .isEqualTo(VerbsStatus.INSUFFICIENT_RESOURCES);
            assertThat(r.setCompletionEventHandler(a, (x, c) -> { })).isEqualTo(a); // replace
            assertThat(r.setCompletionEventHandler(a, null)).isEqualTo(a); // clear
            assertThat(statusOf(() -> r.setCompletionEventHandler(a, null)))
                    .isEqualTo(VerbsStatus.INVALID_COMPLETION_HANDLER_ID);
            assertThat(statusOf(() -> r.setCompletionEventHandler(99, (x, c) -> { })))
                    .isEqualTo(VerbsStatus.INVALID_COMPLETION_HANDLER_ID);
            assertThat(statusOf(() -> r.createCq(4, a))).isEqualTo(VerbsStatus.INVALID_COMPLETION_HANDLER_ID);
        }
    }

    @Test
    void asyncHandlerIsReplacedAndNullTurnsItOff_V_ERR_15_V_VERB_SetAEH_1() {
        java.util.List<AsyncEvent> second = new java.util.ArrayList<>();
        rnic.setAsyncEventHandler((r, e) -> second.add(e));
        CompletionQueue small = rnic.createCq(1);
        QueuePair qp = pd.createQueuePair(qpConfig().cqs(small, small));
        FakeTransport t = toRts(qp);
        rnic.setAsyncEventHandler(null);
        t.upcalls.connectionFailed(false); // lost: no handler, event dropped (V-ERR-16)
        assertThat(second).isEmpty();
        assertThat(events).isEmpty();
        QueuePair qp2 = pd.createQueuePair(qpConfig().cqs(small, small));
        FakeTransport t2 = toRts(qp2);
        rnic.setAsyncEventHandler((r, e) -> second.add(e));
        t2.upcalls.connectionFailed(true);
        assertThat(second).extracting(AsyncEvent::type).containsExactly(AsyncEventType.LLP_CONNECTION_RESET);
        assertThat(second.getFirst().qpId()).isEqualTo(qp2.id()); // V-ERR-17
        assertThat(second.getFirst().resource()).isSameAs(qp2);
    }

    @Test
    void allocateMemoryIsNativeAndAligned() {
        MemorySegment m = rnic.allocateMemory(100, 4096);
        assertThat(m.isNative()).isTrue();
        assertThat(m.address() % 4096).isZero();
        assertThat(m.byteSize()).isEqualTo(100);
    }

    @Test
    void limitsAreEnforced_V_RNIC_3() {
        try (SoftRnic r = SoftRnic.open(config().qpLimits(1, 8).memoryLimits(1, 1, 1, 4).cqLimits(1, 8, 1))) {
            ProtectionDomain p = r.allocatePd();
            assertThat(statusOf(r::allocatePd)).isEqualTo(VerbsStatus.INSUFFICIENT_RESOURCES);
            CompletionQueue c = r.createCq(8);
            assertThat(statusOf(() -> r.createCq(1))).isEqualTo(VerbsStatus.INSUFFICIENT_RESOURCES);
            assertThat(statusOf(() -> r.createCq(9))).isEqualTo(VerbsStatus.CQ_DEPTH_EXCEEDS_CAPABILITY);
            p.createQueuePair(new io.jrnic.api.QueuePairConfig().cqs(c, c).depths(8, 8));
            assertThat(statusOf(() -> p.createQueuePair(new io.jrnic.api.QueuePairConfig().cqs(c, c).depths(8, 8))))
                    .isEqualTo(VerbsStatus.INSUFFICIENT_RESOURCES);
            p.allocateRegionStag(4, false);
            assertThat(statusOf(() -> p.allocateRegionStag(1, false))).isEqualTo(VerbsStatus.INSUFFICIENT_RESOURCES);
            p.allocateWindow();
            assertThat(statusOf(p::allocateWindow)).isEqualTo(VerbsStatus.INSUFFICIENT_RESOURCES);
        }
        assertThatThrownBy(() -> SoftRnic.open(config().memoryLimits(1, 1 << 24, 1, 1)))
                .isInstanceOf(VerbsException.class);
    }
}
