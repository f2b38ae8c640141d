package io.jrnic.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** The incremental startup frame parser. */
class StartupFrameParserTest {

    @Test
    void consumesExactlyTheFrameAndLeavesTheFirstFpduV_VERB_ModifyQP_4() {
        // Request of wire-format.md §5.1 immediately followed by the first FPDU of §5.3.
        MemorySegment stream = Hex.segment(StartupFrameTest.WORKED_REQUEST + FpduTest.WORKED_EXAMPLE_FPDU);
        StartupFrameParser parser = new StartupFrameParser(StartupFrame.Kind.REQUEST, 512);
        long off = 0;
        while (parser.state() == StartupFrameParser.State.NEED_MORE) {
            off += parser.consume(stream, off, 1);
        }
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.COMPLETE);
        assertThat(off).isEqualTo(24);
        assertThat(parser.received()).isEqualTo(24);
        assertThat(parser.frame().pdLength()).isEqualTo(4);
        assertThat(parser.consume(stream, off, 10)).isZero();
        assertThat(Hex.of(stream, off, 2)).isEqualTo("001e");
    }

    @Test
    void takesAWholeBufferButStopsAtTheFrameEnd() {
        MemorySegment stream = Hex.segment(StartupFrameTest.REV2_REQUEST + FpduTest.WORKED_EXAMPLE_FPDU);
        StartupFrameParser parser = new StartupFrameParser(StartupFrame.Kind.REQUEST, 512);
        assertThat(parser.consume(stream, 0, (int) stream.byteSize())).isEqualTo(24);
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.COMPLETE);
        assertThat(parser.frame().enhancedSetup().ird()).isEqualTo(16);
        Negotiation n = new MpaNegotiator(MpaSettings.defaults()).onRequest(parser.frame(), parser.received());
        assertThat(n.outcome()).isEqualTo(Negotiation.Outcome.ACCEPT);
    }

    @Test
    void reportsBadHeaderBeforePrivateDataArrives() {
        MemorySegment header = Hex.segment(StartupFrameTest.REQ_KEY + "40 01 0258");
        StartupFrameParser parser = new StartupFrameParser(StartupFrame.Kind.REQUEST, 512);
        assertThat(parser.consume(header, 0, 19)).isEqualTo(19);
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.NEED_MORE);
        assertThat(parser.consume(header, 19, 1)).isEqualTo(1);
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.INVALID);
        assertThat(parser.reason()).isEqualTo(StartupFrameReason.PD_LENGTH_TOO_LONG);
        assertThat(parser.consume(header, 0, 20)).isZero();
    }

    @Test
    void detectsInitiatorInitiatorAndCanBeReset() {
        MemorySegment req = Hex.segment(StartupFrameTest.WORKED_REQUEST);
        StartupFrameParser parser = new StartupFrameParser(StartupFrame.Kind.REPLY, 256);
        parser.consume(req, 0, 24);
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.INVALID);
        assertThat(parser.reason()).isEqualTo(StartupFrameReason.INITIATOR_INITIATOR);
        parser.reset();
        MemorySegment rep = Hex.segment(StartupFrameTest.WORKED_REPLY);
        assertThat(parser.consume(rep, 0, 20)).isEqualTo(20);
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.COMPLETE);
        assertThat(parser.reason()).isNull();
    }

    @Test
    void enforcesLocalPrivateDataLimit() {
        MemorySegment req = Hex.segment(StartupFrameTest.REQ_KEY + "40 01 0104");
        StartupFrameParser parser = new StartupFrameParser(StartupFrame.Kind.REQUEST, 256);
        parser.consume(req, 0, 20);
        assertThat(parser.reason()).isEqualTo(StartupFrameReason.PD_LENGTH_EXCEEDS_LIMIT);
    }

    @Test
    void rejectsBadArguments() {
        assertThatThrownBy(() -> new StartupFrameParser(null, 512)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected");
        assertThatThrownBy(() -> new StartupFrameParser(StartupFrame.Kind.REPLY, 513))
                .hasMessageContaining("maxPrivateData");
    }

    @Test
    void headerSplitAcrossChunksStillStopsAtTheFrameEnd() {
        // RFC 5044 §7.1.2 rule 6: the first FPDU follows the Reply at once; it is not the parser's.
        MemorySegment stream = Hex.segment(StartupFrameTest.WORKED_REPLY + FpduTest.WORKED_EXAMPLE_FPDU);
        StartupFrameParser parser = new StartupFrameParser(StartupFrame.Kind.REPLY, 512);
        assertThat(parser.consume(stream, 0, 10)).isEqualTo(10);
        assertThat(parser.consume(stream, 10, (int) stream.byteSize() - 10)).isEqualTo(10);
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.COMPLETE);
        assertThat(parser.received()).isEqualTo(20);
        assertThat(Hex.of(stream, 20, 2)).isEqualTo("001e");
    }

    @Test
    void neverTakesMoreThanTheBytesItIsGiven() {
        MemorySegment stream = Hex.segment(StartupFrameTest.WORKED_REQUEST);  // 20 + 4 octets of private data
        StartupFrameParser parser = new StartupFrameParser(StartupFrame.Kind.REQUEST, 512);
        assertThat(parser.consume(stream, 0, 22)).isEqualTo(22);
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.NEED_MORE);
        assertThat(parser.received()).isEqualTo(22);
        assertThat(parser.consume(stream, 22, 2)).isEqualTo(2);
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.COMPLETE);
    }

    @Test
    void aLimitOfNoPrivateDataTakesFramesWithoutAny() {
        StartupFrameParser parser = new StartupFrameParser(StartupFrame.Kind.REPLY, 0);
        assertThat(parser.consume(Hex.segment(StartupFrameTest.WORKED_REPLY), 0, 20)).isEqualTo(20);
        assertThat(parser.state()).isEqualTo(StartupFrameParser.State.COMPLETE);
        parser.reset();
        parser.consume(Hex.segment(StartupFrameTest.REP_KEY + "40 01 0001 00"), 0, 21);
        assertThat(parser.reason()).isEqualTo(StartupFrameReason.PD_LENGTH_EXCEEDS_LIMIT);
        assertThatThrownBy(() -> new StartupFrameParser(StartupFrame.Kind.REPLY, -1))
                .hasMessageContaining("maxPrivateData");
    }
}
