package io.jrnic.core;

import io.jrnic.core.engine.PersistenceExecutor;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The RNIC's persistence threads: created on first use, daemon, named, refused after close. */
class PersistenceExecutorTest {
    @Test
    void threadsStartOnFirstUseAndRefuseWorkAfterClose() throws Exception {
        PersistenceExecutor e = new PersistenceExecutor("px");
        assertThat(e.started()).isFalse();
        CompletableFuture<Thread> ran = new CompletableFuture<>();
        e.submit(() -> ran.complete(Thread.currentThread()));
        Thread t = ran.get(10, TimeUnit.SECONDS);
        assertThat(t.getName()).isEqualTo("jrnic-persist-px-1");
        assertThat(t.isDaemon()).isTrue();
        assertThat(t.isVirtual()).isFalse();
        assertThat(e.started()).isTrue();
        e.close();
        e.close(); // idempotent
        assertThatThrownBy(() -> e.submit(() -> { })).isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("px");
    }

    @Test
    void seamsReplaceTheForceAndThePool() {
        PersistenceExecutor e = new PersistenceExecutor("seams");
        PersistenceExecutor.Forcer original = e.forcer();
        MemorySegment heap = MemorySegment.ofArray(new byte[8]);
        // the default force is MemorySegment.force(), which refuses memory that is not file-mapped
        assertThatThrownBy(() -> original.force(heap)).isInstanceOf(UnsupportedOperationException.class);
        StringBuilder calls = new StringBuilder();
        e.forcer(range -> calls.append(range.byteSize()));
        e.forcer().force(heap);
        e.executor(Runnable::run);
        e.submit(() -> calls.append("+inline"));
        assertThat(calls).hasToString("8+inline");
        assertThat(e.started()).isFalse(); // the override ran it: no pool thread was made
        assertThatThrownBy(() -> e.forcer(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("forcer");
        e.close();
    }

    @Test
    void poolThreadsAreDaemonsWhateverThreadSubmitsAndEndAfterClose() throws Exception {
        PersistenceExecutor e = new PersistenceExecutor("daemon");
        CompletableFuture<Thread> ran = new CompletableFuture<>();
        // an event loop thread need not be a daemon; a pool thread must never keep the JVM alive
        Thread loop = new Thread(() -> e.submit(() -> ran.complete(Thread.currentThread())), "a-loop");
        loop.setDaemon(false);
        loop.start();
        loop.join(10_000);
        Thread t = ran.get(10, TimeUnit.SECONDS);
        assertThat(t.isDaemon()).isTrue();
        e.close(); // an idle pool thread ends now, not after the keep-alive
        t.join(10_000);
        assertThat(t.isAlive()).isFalse();
    }
}
