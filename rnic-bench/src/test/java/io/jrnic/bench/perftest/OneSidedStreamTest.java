package io.jrnic.bench.perftest;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link OneSidedStream}'s window as perftest's run_iter_bw keeps it: one operation in
 * {@value OneSidedStream#SIGNAL_EVERY} signaled, a signaled completion retiring the ones before it,
 * and a drain that ends on an unsignaled operation adding one signaled operation.
 */
class OneSidedStreamTest {

    @Test
    void oneOperationInThirtyTwoIsSignaledAndADrainOnAnUnsignaledOneAddsOneSignaled() throws Exception {
        for (boolean atomic : new boolean[] {false, true}) {
            OneSidedStream stream = OneSidedStream.open(atomic, 64, 128, false);
            try {
                // more than the ORD (16) posted without waiting: the RNIC's send queue holds the rest
                for (int i = 0; i < 2 * OneSidedStream.SIGNAL_EVERY; i++) {
                    stream.next();
                }
                stream.drain();
                assertThat(stream.posted()).as("a drain after a signaled operation adds none").isEqualTo(64);
                assertThat(stream.completionsTaken()).as("completions of 64 operations").isEqualTo(2);

                for (int i = 0; i < 10; i++) {
                    stream.next();
                }
                stream.drain();
                assertThat(stream.posted()).as("a drain after an unsignaled operation adds a signaled one").isEqualTo(75);
                assertThat(stream.completionsTaken()).isEqualTo(3);
                stream.drain();
                assertThat(stream.posted()).as("a drain with nothing outstanding adds none").isEqualTo(75);
            } finally {
                stream.finish(); // for FetchAdds: the counter must equal the 75 operations
            }
        }
    }
}
