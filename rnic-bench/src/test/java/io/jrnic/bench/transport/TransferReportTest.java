package io.jrnic.bench.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import java.util.stream.Stream;

class TransferReportTest {

    @Test
    void intactWhenEverythingArrivedUnharmed() {
        TransferReport report = new TransferReport(10, 10, 0, 0, 0, 0);

        assertThat(report.intact()).isTrue();
        assertThat(report.verified()).isSameAs(report);
    }

    static Stream<TransferReport> faulty() {
        return Stream.of(
                new TransferReport(10, 9, 0, 0, 0, 0),
                new TransferReport(10, 10, 1, 0, 0, 0),
                new TransferReport(10, 10, 0, 1, 0, 0),
                new TransferReport(10, 10, 0, 0, 1, 0),
                new TransferReport(10, 9, 0, 0, 0, 1));
    }

    @ParameterizedTest
    @MethodSource("faulty")
    void verifiedRejectsEveryFault(TransferReport report) {
        assertThat(report.intact()).isFalse();
        assertThatIllegalStateException()
                .isThrownBy(report::verified)
                .withMessageContaining("not intact")
                .withMessageContaining(report.toString());
    }
}
