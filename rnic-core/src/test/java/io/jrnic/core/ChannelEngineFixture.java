package io.jrnic.core;

import io.jrnic.core.transport.ConnectCallback;
import io.jrnic.core.transport.FpduChannel;
import io.jrnic.core.transport.IwarpTransport;
import io.jrnic.core.transport.SetupFailure;
import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Engines over real netty channels on loopback TCP, for tests that watch the transport itself
 * (paused reading, flow control): the transport and RNICs a test opens are closed after it, and
 * the waits are bounded.
 */
abstract class ChannelEngineFixture {
    IwarpTransport transport;
    final List<SoftRnic> rnics = new ArrayList<>();

    @AfterEach
    void tearDown() {
        rnics.forEach(SoftRnic::close);
        if (transport != null) {
            transport.close();
        }
    }

    static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    static void await(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.onSpinWait();
        }
    }

    /** Runs a task on the channel's loop and waits: one full turn of that event loop. */
    static void turn(FpduChannel channel) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        channel.executor().execute(() -> done.complete(null));
        get(done);
    }

    /** The channel of a setup, or the setup failure as an assertion error. */
    static final class Established implements ConnectCallback {
        final CompletableFuture<FpduChannel> channel = new CompletableFuture<>();

        @Override
        public void onEstablished(FpduChannel c) {
            channel.complete(c);
        }

        @Override
        public void onFailed(SetupFailure failure) {
            channel.completeExceptionally(new AssertionError("setup failed: " + failure));
        }
    }
}
