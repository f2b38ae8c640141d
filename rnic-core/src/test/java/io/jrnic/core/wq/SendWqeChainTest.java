package io.jrnic.core.wq;

import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The intrusive FIFO of send WQEs: order, what a taken chain looks like, and reuse after draining. */
class SendWqeChainTest {

    private static SendWqe wqe(long id) {
        SendWqe w = new SendWqe(1, 0);
        w.copyFrom(new SendWorkRequest().wrId(id).opcode(Opcode.SEND), true);
        return w;
    }

    /** The WR IDs of a chain taken out of a SendWqeChain, following txNext to its null. */
    private static List<Long> ids(SendWqe first) {
        List<Long> ids = new ArrayList<>();
        for (SendWqe w = first; w != null; w = w.txNext) {
            ids.add(w.wrId());
        }
        return ids;
    }

    @Test
    void pollsInTheOrderAddedAndUnlinksWhatItHandsOut() {
        SendWqeChain chain = new SendWqeChain();
        SendWqe stale = wqe(1);
        stale.txNext = wqe(99); // a link left from an earlier use is not followed
        chain.add(stale);
        chain.add(wqe(2));

        assertThat(chain.isEmpty()).isFalse();
        SendWqe first = chain.poll();
        assertThat(first.wrId()).isEqualTo(1);
        assertThat(first.txNext).isNull();
        chain.add(wqe(9)); // behind the one left
        assertThat(ids(chain.first())).containsExactly(2L, 9L);
        assertThat(chain.poll().wrId()).isEqualTo(2);
        assertThat(chain.poll().wrId()).isEqualTo(9);
        assertThat(chain.poll()).isNull();
        assertThat(chain.isEmpty()).isTrue();

        chain.add(wqe(3)); // drained: the tail was reset too
        assertThat(ids(chain.takeAll())).containsExactly(3L);
    }

    @Test
    void takeThroughCutsAfterTheGivenWqeAndKeepsTheRest() {
        SendWqeChain chain = new SendWqeChain();
        SendWqe[] w = {wqe(1), wqe(2), wqe(3), wqe(4)};
        for (SendWqe x : w) {
            chain.add(x);
        }

        assertThat(ids(chain.takeThrough(w[1]))).containsExactly(1L, 2L);
        SendWqe six = wqe(6);
        chain.add(six); // behind the ones left
        assertThat(ids(chain.first())).containsExactly(3L, 4L, 6L);
        assertThat(ids(chain.takeThrough(six))).containsExactly(3L, 4L, 6L);
        assertThat(chain.isEmpty()).isTrue();

        chain.add(wqe(5)); // emptied by takeThrough: the tail was reset too
        assertThat(ids(chain.first())).containsExactly(5L);
    }

    @Test
    void addAllAppendsAChainAndTakeAllEmptiesIt() {
        SendWqeChain chain = new SendWqeChain();
        chain.add(wqe(1));
        SendWqe a = wqe(2);
        SendWqe b = wqe(3);
        a.txNext = b;
        chain.addAll(a, b);
        chain.add(wqe(4));

        assertThat(ids(chain.takeAll())).containsExactly(1L, 2L, 3L, 4L);
        assertThat(chain.isEmpty()).isTrue();
        assertThat(chain.takeAll()).isNull();
        chain.add(wqe(5));
        assertThat(ids(chain.takeAll())).containsExactly(5L);
    }

    @Test
    void clearForgetsEverything() {
        SendWqeChain chain = new SendWqeChain();
        chain.add(wqe(1));
        chain.add(wqe(2));

        chain.clear();

        assertThat(chain.isEmpty()).isTrue();
        assertThat(chain.first()).isNull();
        chain.add(wqe(3));
        assertThat(ids(chain.takeAll())).containsExactly(3L);
    }
}
