package io.jrnic.core;

import io.jrnic.api.ConnectionSettings;
import io.jrnic.api.IoTransport;
import io.jrnic.api.QueuePair;
import io.jrnic.api.RnicConfig;
import io.jrnic.core.engine.QpEngine;
import io.jrnic.core.transport.FpduChannel;
import io.jrnic.core.transport.TestIoTransport;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code RnicConfig.ioTransport} through the RNIC and its connection manager (issue 11,
 * docs/transport.md "Socket kinds"): the connections use the configured socket kind, and on epoll
 * the connection's progress timeout is its socket's TCP_USER_TIMEOUT too.
 */
class IoTransportLoopbackTest extends LoopbackFixture {

    private static FpduChannel link(QueuePair qp) {
        return (FpduChannel) ((QpEngine) qp.query().llpStream()).link;
    }

    @Test
    void theRnicKeepsItsIoTransportAndItsConnectionsUseIt() throws Exception {
        assertThat(a.rnic.config().ioTransport()).isEqualTo(TestIoTransport.CHOICE);
        Pair p = connect(new ConnectionSettings());
        assertThat(link(p.qpA()).ioTransport()).isEqualTo(TestIoTransport.resolved());
        assertThat(link(p.qpB()).ioTransport()).isEqualTo(TestIoTransport.resolved());
    }

    @Test
    void progressTimeoutIsTheSocketsTcpUserTimeoutOnEpoll() throws Exception {
        Pair p = connect(new ConnectionSettings().progressTimeout(Duration.ofMillis(7_250)));
        Duration expected = TestIoTransport.resolved() == IoTransport.EPOLL ? Duration.ofMillis(7_250) : Duration.ZERO;
        assertThat(link(p.qpA()).tcpUserTimeout()).isEqualTo(expected);
        assertThat(link(p.qpB()).tcpUserTimeout()).isEqualTo(expected);
    }

    @Test
    void zeroProgressTimeoutLeavesTheKernelsDefault() throws Exception {
        Pair p = connect(new ConnectionSettings().progressTimeout(Duration.ZERO));
        assertThat(link(p.qpA()).tcpUserTimeout()).isEqualTo(Duration.ZERO);
        assertThat(link(p.qpB()).tcpUserTimeout()).isEqualTo(Duration.ZERO);
    }

    @Test
    void epollAskedForOpensWhereItLoads() {
        assumeTrue(Epoll.isAvailable(), "netty's native epoll transport loads here");
        try (SoftRnic rnic = SoftRnic.open(new RnicConfig().ioTransport(IoTransport.EPOLL))) {
            assertThat(rnic.config().ioTransport()).isEqualTo(IoTransport.EPOLL);
        }
    }
}
