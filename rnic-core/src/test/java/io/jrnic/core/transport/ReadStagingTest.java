package io.jrnic.core.transport;

import io.jrnic.core.transport.TransportFixture.Endpoint;
import io.jrnic.core.transport.TransportFixture.Pair;
import io.jrnic.mpa.CrcPolicy;
import io.jrnic.mpa.MpaSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

import static io.jrnic.core.transport.TransportFixture.assertSameBytes;
import static io.jrnic.core.transport.TransportFixture.await;
import static io.jrnic.core.transport.TransportFixture.fpduCount;
import static io.jrnic.core.transport.TransportFixture.pattern;
import static io.jrnic.core.transport.TransportFixture.total;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ReadStaging}: the connections of one event loop share its receive staging, over real
 * loopback TCP. Six connection ends on one loop stream at once in both directions, FPDUs of every
 * size split across reads, CRCs and markers on: every byte arrives where it belongs, and the loop
 * has one staging area.
 */
class ReadStagingTest {
    private static final int[] SIZES = {1, 13, 511, 1454, 4096, 65535, 100_003, 3, 262_144, 700};
    private static final int PAIRS = 3;

    private IwarpTransport transport;

    @AfterEach
    void close() {
        if (transport != null) {
            transport.close();
        }
    }

    @Test
    void connectionsOfOneLoopShareItsStagingAndStreamAtOnceByteForByte() throws Exception {
        transport = new IwarpTransport(TransportFixture.config().eventLoopThreads(1).build());
        MpaSettings settings = MpaSettings.builder().crcPolicy(CrcPolicy.OPTIONAL).requestMarkers(true).build();
        long bytes = total(SIZES);
        List<Endpoint> ends = new ArrayList<>();
        List<MemorySegment> data = new ArrayList<>();
        for (int i = 0; i < PAIRS; i++) {
            Pair pair = TransportFixture.connect(transport, settings, settings);
            // each end sends SIZES and expects the other end's SIZES
            Endpoint a = new Endpoint(bytes, fpduCount(SIZES, pair.responder().mulpdu()));
            Endpoint b = new Endpoint(bytes, fpduCount(SIZES, pair.initiator().mulpdu()));
            a.start(pair.initiator());
            b.start(pair.responder());
            ends.add(a);
            ends.add(b);
            data.add(pattern(bytes, 2L * i + 1));
            data.add(pattern(bytes, 2L * i + 2));
        }
        for (int e = 0; e < ends.size(); e++) {
            ends.get(e).send(data.get(e), SIZES);
        }
        for (Endpoint end : ends) {
            await(end.done);
        }
        for (int e = 0; e < ends.size(); e++) {
            Endpoint peer = ends.get(e ^ 1); // the other end of the same connection
            assertSameBytes(peer.received, data.get(e), bytes);
            assertThat(peer.fault).isNotDone();
        }
        assertThat(transport.stagingAreas()).as("one staging area for the loop's six connection ends").isEqualTo(1);
    }
}
