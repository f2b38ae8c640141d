package io.jrnic.bench.transport;

import io.jrnic.api.WorkCompletion;
import io.jrnic.api.WorkCompletionStatus;
import java.io.IOException;

/**
 * Helpers around {@link WorkCompletion}s: a reusable batch for {@code CompletionQueue.poll} and the
 * status check.
 *
 * <p>Thread safety: stateless.
 */
final class Completions {

    /** Completions fetched per poll call. */
    static final int BATCH = 32;

    private Completions() {
    }

    /** A poll batch of {@value #BATCH} reusable completions, created once per polling thread. */
    static WorkCompletion[] batch() {
        WorkCompletion[] batch = new WorkCompletion[BATCH];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = new WorkCompletion();
        }
        return batch;
    }

    /**
     * Fails on an unsuccessful completion: a flushed or failed work request means the connection
     * broke, and every later measurement would be meaningless.
     *
     * @param wc   the completion
     * @param side the endpoint, for the message
     * @throws IOException naming the completion if its status is not SUCCESS
     */
    static void check(WorkCompletion wc, Object side) throws IOException {
        if (wc.status() != WorkCompletionStatus.SUCCESS) {
            throw new IOException("work request failed: " + wc + " on " + side);
        }
    }
}
