package io.jrnic.test;

import io.jrnic.api.Connection;
import io.jrnic.api.MemoryRegion;
import io.jrnic.api.Opcode;
import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.RemoteBuffer;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.WorkCompletionStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherFactory;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder.request;

/**
 * The extension's lifecycle, seen from outside: test classes that use it (the nested classes
 * below, which Surefire does not run by themselves) are run through the JUnit Platform launcher,
 * then the outcome of each test and the state of the pairs they got are checked: every RNIC closed
 * and every event-loop thread ended, unreaped completions failing a test that passed, and the
 * parameter and scope rules.
 */
class RnicPairExtensionTest {
    /** The pairs the nested tests got, in the order they got them. */
    static final List<RnicPair> PAIRS = new CopyOnWriteArrayList<>();
    /** The RNICs' event-loop threads seen while the nested tests ran. */
    static final Set<Thread> LOOP_THREADS = ConcurrentHashMap.newKeySet();

    /** Whether {@link #run} runs the nested classes (Surefire runs them too when -Dtest names them). */
    private static volatile boolean launched;

    static boolean launched() {
        return launched;
    }

    static void record(RnicPair pair) {
        PAIRS.add(pair);
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("jrnic-transport-")) {
                LOOP_THREADS.add(t);
            }
        }
    }

    /** Posts a receive on the passive end and aborts its connection: one FLUSHED completion is left. */
    static void leaveAFlushedReceive(RnicPair pair) throws Exception {
        MemoryRegion sink = pair.passive().allocate(64);
        pair.passive().qp().postReceive(new ReceiveWorkRequest().wrId(42).sge(sink.stag(), sink.memory().address(), 64));
        // Verbs §6.6.2.3: Modify QP to Error flushes the receive on this thread, before abort() returns
        pair.passive().connection().abort().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    /**
     * Sends one message and reaps its receive at the passive end, not the Send's own completion at
     * the active end, which may or may not have come when this returns.
     */
    static void sendWithoutReapingTheSend(RnicPair pair) {
        MemoryRegion sink = pair.passive().allocate(64);
        pair.passive().qp().postReceive(new ReceiveWorkRequest().wrId(42).sge(sink.stag(), sink.memory().address(), 64));
        pair.active().qp().postSend(new SendWorkRequest().wrId(1).opcode(Opcode.SEND));
        pair.passive().awaitSuccess(42);
    }

    // ---- the test classes run through the launcher -----------------------------------------------

    @EnabledIf("io.jrnic.test.RnicPairExtensionTest#launched")
    @RnicTest
    static class LeavesACompletion {
        @Test
        void leaves(RnicPair pair) {
            record(pair);
            sendWithoutReapingTheSend(pair);
        }
    }

    @EnabledIf("io.jrnic.test.RnicPairExtensionTest#launched")
    @RnicTest(timeoutSeconds = 0)
    static class CannotConnectInTime {
        @Test
        void neverRuns(RnicPair pair) {
            throw new AssertionError("a pair that did not connect was injected");
        }
    }

    @EnabledIf("io.jrnic.test.RnicPairExtensionTest#launched")
    @RnicTest
    static class LeavesAReadInFlight {
        @Test
        void returnsAtOnce(RnicPair pair) {
            record(pair);
            int n = 8 << 20;
            MemoryRegion source = pair.passive().allocate(n);
            MemoryRegion sink = pair.active().allocate(n);
            pair.active().qp().postSend(new SendWorkRequest().wrId(2).opcode(Opcode.RDMA_READ)
                    .sge(sink.stag(), sink.memory().address(), n).remote(RemoteBuffer.of(source)));
        }
    }

    @EnabledIf("io.jrnic.test.RnicPairExtensionTest#launched")
    @RnicTest
    static class ReapsOrDrainsItsCompletions {
        @Test
        void reaps(RnicPair pair) {
            record(pair);
            sendWithoutReapingTheSend(pair);
            pair.active().awaitSuccess(1);
        }

        @Test
        void drains(RnicPair pair) throws Exception {
            record(pair);
            leaveAFlushedReceive(pair);
            assertThat(pair.passive().drain()).singleElement()
                    .satisfies(wc -> assertThat(wc.status()).isEqualTo(WorkCompletionStatus.FLUSHED));
        }

        @Test
        void leavesOnlyPostedReceives(RnicPair pair) {
            record(pair);
            for (RnicPair.Endpoint end : List.of(pair.active(), pair.passive())) {
                MemoryRegion sink = end.allocate(64);
                for (int i = 0; i < 3; i++) {
                    end.qp().postReceive(new ReceiveWorkRequest().wrId(i).sge(sink.stag(), sink.memory().address(), 64));
                }
            }
        }

        @Test
        @RnicTest(requireReaped = false)
        void doesNotCare(RnicPair pair) {
            record(pair);
            sendWithoutReapingTheSend(pair);
        }
    }

    @EnabledIf("io.jrnic.test.RnicPairExtensionTest#launched")
    @RnicTest
    static class FailsByItself {
        @Test
        void fails(RnicPair pair) {
            record(pair);
            sendWithoutReapingTheSend(pair);
            throw new AssertionError("the test's own failure");
        }
    }

    @EnabledIf("io.jrnic.test.RnicPairExtensionTest#launched")
    @ExtendWith(RnicPairExtension.class)
    static class AsksForThreeConnections {
        @Test
        void three(Connection a, Connection b, Connection c) {
        }
    }

    @EnabledIf("io.jrnic.test.RnicPairExtensionTest#launched")
    @RnicTest
    static class SharesOnePairAcrossTheClass {
        static RnicPair shared;

        @BeforeAll
        static void open(RnicPair pair) {
            shared = pair;
            record(pair);
        }

        @Test
        void first(RnicPair pair) {
            assertThat(pair).isSameAs(shared);
            sendWithoutReapingTheSend(pair);
            pair.active().awaitSuccess(1);
        }

        @Test
        void second(RnicPair pair) {
            assertThat(pair).isSameAs(shared);
            sendWithoutReapingTheSend(pair); // the connection outlived the first test
            pair.active().awaitSuccess(1);
        }

        @AfterAll
        static void stillOpen() {
            assertThat(shared.active().rnic().isOpen()).isTrue();
        }
    }

    @EnabledIf("io.jrnic.test.RnicPairExtensionTest#launched")
    @ExtendWith(RnicPairExtension.class)
    static class ConstructorInjected {
        final RnicPair fromConstructor;

        ConstructorInjected(RnicPair pair) {
            fromConstructor = pair;
        }

        @BeforeEach
        void before(RnicPair pair) {
            record(pair);
            assertThat(pair).isSameAs(fromConstructor);
        }

        @Test
        void sameAsTheConstructors(RnicPair pair) {
            assertThat(pair).isSameAs(fromConstructor);
        }

        @Test
        void againWithAnotherPair(RnicPair pair) {
            assertThat(pair).isSameAs(fromConstructor);
        }
    }

    // ---- the checks -----------------------------------------------------------------------------

    /** Runs one test class through the launcher and returns each test's result by method name. */
    private static Map<String, TestExecutionResult> run(Class<?> testClass) {
        Map<String, TestExecutionResult> results = new ConcurrentHashMap<>();
        Launcher launcher = LauncherFactory.create();
        launched = true;
        try {
            launcher.execute(request().selectors(selectClass(testClass)).build(), new TestExecutionListener() {
                @Override
                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                    String name = id.isTest() ? id.getDisplayName().replaceAll("\\(.*", "") : "class";
                    if (id.isTest() || id.getSource().isPresent()) { // a test or the class, not the engine
                        results.merge(name, result, (x, y) -> x.getStatus() != TestExecutionResult.Status.SUCCESSFUL ? x : y);
                    }
                }
            });
        } finally {
            launched = false;
        }
        return results;
    }

    private static Throwable failure(TestExecutionResult result) {
        assertThat(result.getStatus()).isEqualTo(TestExecutionResult.Status.FAILED);
        return result.getThrowable().orElseThrow();
    }

    /** Every pair the nested tests got is closed and every event-loop thread they used has ended. */
    private static void assertAllClosed(int pairs) throws InterruptedException {
        assertThat(PAIRS).hasSize(pairs);
        for (RnicPair pair : PAIRS) {
            assertThat(pair.active().rnic().isOpen()).as("active RNIC of %s open", pair).isFalse();
            assertThat(pair.passive().rnic().isOpen()).as("passive RNIC of %s open", pair).isFalse();
        }
        assertThat(LOOP_THREADS).isNotEmpty();
        for (Thread t : LOOP_THREADS) {
            // Close RNIC waited for the loops to terminate; the thread itself may take a moment to exit
            assertThat(t.join(Duration.ofSeconds(10))).as("%s ended", t.getName()).isTrue();
        }
    }

    @org.junit.jupiter.api.AfterEach
    void forget() {
        PAIRS.clear();
        LOOP_THREADS.clear();
    }

    @Test
    void aPassingTestThatLeavesACompletionFailsAndItsPairIsClosed() throws Exception {
        Map<String, TestExecutionResult> results = run(LeavesACompletion.class);
        // the Send's completion, whether or not it had come when the test method returned
        assertThat(failure(results.get("leaves"))).hasMessageContaining("left 1 completion(s) unreaped")
                .hasMessageContaining("wrId=1, SEND");
        assertAllClosed(1);
    }

    @Test
    void aWorkRequestStillOutstandingWhenTheTestReturnsIsCountedToo() throws Exception {
        // the graceful close completes or flushes it (a Bad Close, Verbs §6.6.2.1) before the check
        assertThat(failure(run(LeavesAReadInFlight.class).get("returnsAtOnce")))
                .hasMessageContaining("left 1 completion(s) unreaped").hasMessageContaining("wrId=2, RDMA_READ");
        assertAllClosed(1);
    }

    @Test
    void reapedDrainedOrNotRequiredCompletionsAndPostedReceivesPass() throws Exception {
        Map<String, TestExecutionResult> results = run(ReapsOrDrainsItsCompletions.class);
        for (String test : List.of("reaps", "drains", "leavesOnlyPostedReceives", "doesNotCare")) {
            assertThat(results.get(test).getStatus()).as("%s: %s", test, results.get(test).getThrowable())
                    .isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        }
        assertThat(PAIRS).hasSize(4).doesNotHaveDuplicates(); // one pair per test method
        assertAllClosed(4);
    }

    @Test
    void aFailingTestIsReportedWithItsOwnFailureOnly() throws Exception {
        Throwable failure = failure(run(FailsByItself.class).get("fails"));
        assertThat(failure).hasMessage("the test's own failure");
        assertThat(failure.getSuppressed()).isEmpty();
        assertAllClosed(1);
    }

    @Test
    void aPairThatCannotConnectFailsTheTestAndIsClosedAgain() throws Exception {
        // zero seconds: the setup cannot have finished when the kit stops waiting for it
        Throwable failure = failure(run(CannotConnectInTime.class).get("neverRuns"));
        assertThat(failure).hasMessageContaining("within 0 s");
        List<Thread> loops = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("jrnic-transport-")).toList();
        for (Thread t : loops) {
            assertThat(t.join(Duration.ofSeconds(10))).as("%s ended", t.getName()).isTrue();
        }
    }

    @Test
    void aThirdConnectionParameterIsRefused() {
        Throwable failure = failure(run(AsksForThreeConnections.class).get("three"));
        assertThat(failure).isInstanceOf(ParameterResolutionException.class).hasMessageContaining("a third Connection");
    }

    @Test
    void aPairAskedForByBeforeAllIsSharedByTheClassAndClosedAfterIt() throws Exception {
        Map<String, TestExecutionResult> results = run(SharesOnePairAcrossTheClass.class);
        assertThat(results.get("first").getStatus()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(results.get("second").getStatus()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(results.get("class").getStatus()).as("@AfterAll ran with the pair open")
                .isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertAllClosed(1);
    }

    @Test
    void aConstructorGetsTheTestsOwnPair() throws Exception {
        Map<String, TestExecutionResult> results = run(ConstructorInjected.class);
        assertThat(results.get("sameAsTheConstructors").getStatus()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(results.get("againWithAnotherPair").getStatus()).isEqualTo(TestExecutionResult.Status.SUCCESSFUL);
        assertThat(PAIRS.get(0)).as("each test instance has its test's pair").isNotSameAs(PAIRS.get(1));
        assertAllClosed(2);
    }
}
