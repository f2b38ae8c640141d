package io.jrnic.core.wq;

import io.jrnic.api.ReceiveWorkRequest;
import io.jrnic.api.VerbsException;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The receive source seam (issue 10): every WQE goes back to the queue it was posted to, a QP's
 * private RQ or the S-RQ that holds the queue, without the work-queue classes knowing the S-RQ.
 */
class ReceiveQueueTest {

    private static ReceiveWorkRequest wr(long id) {
        return new ReceiveWorkRequest().wrId(id).sge(0, 0, 8);
    }

    @Test
    void aPrivateRqIsTheSourceOfItsWqes_V_WRP_7() {
        ReceiveQueue rq = new ReceiveQueue(2, 1, null, null);
        rq.post(wr(1));
        rq.post(wr(2));
        ReceiveWqe first = rq.take(new Object()); // one consumer: any caller gets the oldest
        assertThat(first.wrId()).isEqualTo(1);
        assertThat(first.source).isSameAs(rq);
        assertThatThrownBy(() -> rq.post(wr(3))).isInstanceOf(VerbsException.class); // depth 2 outstanding
        first.source.recycle(first); // its completion entry was written
        first.account.release(); // and polled
        rq.post(wr(3)); // the recycled slot is reused: nothing is allocated
        assertThat(rq.take()).extracting(ReceiveWqe::wrId).isEqualTo(2L);
        assertThat(rq.take()).isSameAs(first).extracting(ReceiveWqe::wrId).isEqualTo(3L);
        assertThat(rq.take()).isNull();
    }

    @Test
    void wqesOfAQueueInsideAnSrqGoBackThroughTheSrq_V_SRQ_19() {
        List<ReceiveWqe> recycled = new ArrayList<>();
        ReceiveQueue[] inner = new ReceiveQueue[1];
        ReceiveSource<String> srq = new ReceiveSource<>() {
            @Override
            public ReceiveWqe take(String consumer) {
                return inner[0].take();
            }

            @Override
            public void recycle(ReceiveWqe w) {
                recycled.add(w); // the S-RQ's accounting, then its queue's pool
                inner[0].recycle(w);
            }
        };
        inner[0] = new ReceiveQueue(1, 1, null, srq);
        inner[0].post(wr(7));
        ReceiveWqe w = srq.take("qp 1");
        assertThat(w.source).isSameAs(srq);
        w.source.recycle(w);
        assertThat(recycled).containsExactly(w);
    }
}
