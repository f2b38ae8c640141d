package io.jrnic.bench.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Turns}: the order of the slices, where a slice ends, what each part is charged, on a clock
 * the parts advance themselves (each step and settle costs a fixed number of milliseconds), so that
 * every expectation is exact.
 */
class TurnsTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** The fake clock: nanoseconds, advanced by the parts; far from 0, as System.nanoTime's. */
    private long now = 1_000_000 * MS;

    /** Which part started each slice, in order. */
    private final List<String> slices = new ArrayList<>();

    /** The holds and releases of the parts' background spinners, in order. */
    private final List<String> holds = new ArrayList<>();

    private final Progress progress = Progress.start(new PrintStream(new ByteArrayOutputStream(), true,
            StandardCharsets.UTF_8), "test");

    @AfterEach
    void closeProgress() {
        progress.close();
    }

    /** A part whose step costs {@code stepMs} and whose settle costs {@code settleMs} on the fake clock. */
    private final class FakePart extends Turns.Part {
        final String name;
        int settles;

        FakePart(String name, long stepMs, long settleMs) {
            super(() -> now += stepMs * MS, () -> now += settleMs * MS);
            this.name = name;
        }

        @Override
        void sliceStarts() {
            slices.add(name);
        }

        @Override
        void hold() {
            holds.add("hold " + name);
        }

        @Override
        void release() {
            holds.add("release " + name);
        }

        @Override
        void settle() throws IOException {
            settles++;
            super.settle();
        }

        @Override
        double sliceValue(long iterations, long nanos) {
            return (double) iterations / nanos * 1e9;
        }
    }

    /** A part with its own step, no settle, whose slice figure is its step count. */
    private static Turns.Part part(Turns.Step step) {
        return new Turns.Part(step, () -> {
        }) {
            @Override
            double sliceValue(long iterations, long nanos) {
                return iterations;
            }
        };
    }

    private Turns turnsByTime(long durationMs, long sliceMs, long stride) {
        return new Turns(0, durationMs * MS, sliceMs * MS, stride, () -> now);
    }

    @Test
    void partsTakeTurnsInReversingOrderUntilEachHasRunItsOwnTime() throws IOException {
        FakePart rnic = new FakePart("rnic", 1, 0);
        FakePart tcp = new FakePart("tcp", 2, 0);

        turnsByTime(30, 10, 1).run(List.of(rnic, tcp), progress);

        // ABBA: neither always runs after the other
        assertThat(slices).containsExactly("rnic", "tcp", "tcp", "rnic", "rnic", "tcp");
        assertThat(rnic.done).isEqualTo(30);
        assertThat(tcp.done).isEqualTo(15);
        assertThat(rnic.elapsedNanos).isEqualTo(30 * MS);
        assertThat(tcp.elapsedNanos).isEqualTo(30 * MS);
        // each slice's figure is its rate: 1,000 and 500 steps per second
        assertThat(rnic.sliceValues()).containsExactly(1000.0, 1000.0, 1000.0);
        assertThat(tcp.sliceValues()).containsExactly(500.0, 500.0, 500.0);
    }

    @Test
    void eachPartsSpinnersRunOnlyDuringItsOwnSlicesAndAllAreReleasedAtTheEnd() throws IOException {
        FakePart rnic = new FakePart("rnic", 1, 0);
        FakePart tcp = new FakePart("tcp", 1, 0);

        turnsByTime(20, 10, 1).run(List.of(rnic, tcp), progress);

        assertThat(holds).containsExactly("hold rnic", "hold tcp",
                "release rnic", "hold rnic", "release tcp", "hold tcp",
                "release tcp", "hold tcp", "release rnic", "hold rnic",
                "release rnic", "release tcp");
    }

    @Test
    void aFailedSliceStillReleasesEveryPart() {
        FakePart tcp = new FakePart("tcp", 1, 0);
        Turns.Part failing = part(() -> {
            throw new IOException("connection lost");
        });

        assertThatThrownBy(() -> turnsByTime(10, 5, 1).run(List.of(failing, tcp), progress)).hasMessage("connection lost");
        assertThat(holds).containsExactly("hold tcp", "release tcp");
    }

    @Test
    void threePartsReverseTheirOrderEveryRound() throws IOException {
        List<FakePart> parts = List.of(new FakePart("rnic", 1, 0), new FakePart("tcp", 1, 0), new FakePart("floor", 1, 0));

        turnsByTime(20, 10, 1).run(parts, progress);

        assertThat(slices).containsExactly("rnic", "tcp", "floor", "floor", "tcp", "rnic");
    }

    @Test
    void theSliceEndsAtItsLengthOnTheClockLookedAtEveryStride() throws IOException {
        FakePart rnic = new FakePart("rnic", 1, 0);

        // the clock is looked at after 4, 8, 12 steps: a 10 ms slice ends after 12
        turnsByTime(24, 10, 4).run(List.of(rnic), progress);

        assertThat(rnic.sliceValues()).hasSize(2);
        assertThat(rnic.done).isEqualTo(24);
        assertThat(rnic.bestStrideNanos).isEqualTo(4 * MS);
    }

    @Test
    void thePeakIsTheFastestStride() throws IOException {
        long[] steps = {0};
        // strides of 8 steps: 3 ms steps, then 1 ms, then 2 ms
        Turns.Part part = part(() -> now += (++steps[0] <= 8 ? 3 : steps[0] <= 16 ? 1 : 2) * MS);

        new Turns(24, 0, 1000 * MS, 8, () -> now).run(List.of(part), progress);

        assertThat(part.bestStrideNanos).isEqualTo(8 * MS);
    }

    @Test
    void manyShortSlicesAreAllKept() throws IOException {
        FakePart rnic = new FakePart("rnic", 1, 0);

        turnsByTime(100, 2, 1).run(List.of(rnic), progress);

        assertThat(rnic.sliceValues()).hasSize(50).containsOnly(1000.0);
    }

    @Test
    void aPartIsChargedItsSettleAndStopsOnceItsTimeIncludingSettlesIsUsed() throws IOException {
        FakePart rnic = new FakePart("rnic", 1, 5);

        turnsByTime(30, 10, 1).run(List.of(rnic), progress);

        // slices of 10 steps + 5 ms settle: after two, 30 ms are used
        assertThat(rnic.settles).isEqualTo(2);
        assertThat(rnic.done).isEqualTo(20);
        assertThat(rnic.elapsedNanos).isEqualTo(30 * MS);
        assertThat(rnic.sliceValues()).containsExactly(new double[] {10 / 0.015, 10 / 0.015}, within(1e-6));
    }

    @Test
    void anIterationQuotaEndsEachPartAtExactlyItsCountEvenWithinASlice() throws IOException {
        FakePart rnic = new FakePart("rnic", 1, 0);
        FakePart tcp = new FakePart("tcp", 3, 0);

        new Turns(25, 0, 10 * MS, 8, () -> now).run(List.of(rnic, tcp), progress);

        assertThat(rnic.done).isEqualTo(25);
        assertThat(tcp.done).isEqualTo(25);
        // the faster one finishes in fewer rounds; the other goes on alone
        assertThat(slices).startsWith("rnic", "tcp", "tcp", "rnic");
        assertThat(slices.stream().filter("rnic"::equals).count())
                .isLessThan(slices.stream().filter("tcp"::equals).count());
    }

    @Test
    void aSliceLengthOfZeroRunsEachPartToItsEndOneAfterTheOther() throws IOException {
        FakePart rnic = new FakePart("rnic", 1, 0);
        FakePart tcp = new FakePart("tcp", 1, 0);

        turnsByTime(40, 0, 1).run(List.of(rnic, tcp), progress);

        assertThat(slices).containsExactly("rnic", "tcp");
        assertThat(rnic.done).isEqualTo(40);
        assertThat(tcp.done).isEqualTo(40);
    }

    @Test
    void aFailingStepEndsTheRun() {
        Turns.Part failing = part(() -> {
            throw new IOException("connection lost");
        });

        assertThatThrownBy(() -> turnsByTime(10, 5, 1).run(List.of(failing), progress))
                .isInstanceOf(IOException.class).hasMessage("connection lost");
    }

    @Test
    void roundRatiosPairTheSlicesOfEachRoundSkipEmptyOnesAndSort() {
        double[] r = Turns.roundRatios(new double[] {30, 10, 0, 7, 40}, new double[] {10, 20, 5, 0});

        // rounds 1-4 ran for both; round 3 has no RNIC figure, round 4 no baseline's; round 5 no baseline
        assertThat(r).containsExactly(0.5, 3.0);
        assertThat(Turns.median(r)).isEqualTo(1.75);
        assertThat(Turns.median(new double[] {0.9, 1.0, 1.2})).isEqualTo(1.0);
        assertThat(Turns.median(new double[0])).isZero();
    }

    @Test
    void roundRatioLineAndJsonMemberShowMedianAndRange() {
        double[] sorted = {0.5, 1.0, 3.0};

        assertThat(Report.roundRatios(sorted, Report.TCP, "BW", 500))
                .isEqualTo(" rounds rnic/tcp: BW median 1.00x, 0.50-3.00x over 3 rounds of 500 ms");
        // one round: each part ran in one slice, one after the other; the ratio line says it all
        assertThat(Report.roundRatios(new double[] {1.1}, Report.TCP, "BW", 500)).isNull();
        assertThat(Report.withRounds("{\"a\": 1}", "rounds", new double[] {1.1})).isEqualTo("{\"a\": 1}");
        assertThat(Report.withRounds("{\"a\": 1}", "rounds", sorted))
                .isEqualTo("{\"a\": 1, \"rounds\": {\"median\": 1.0000, \"min\": 0.5000, \"max\": 3.0000, \"rounds\": 3}}");
        assertThat(Report.withRounds("{\"a\": 1}", "rounds", null)).isEqualTo("{\"a\": 1}");
    }
}
