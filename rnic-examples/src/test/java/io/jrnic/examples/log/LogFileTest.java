package io.jrnic.examples.log;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Recovery of the log: the valid prefix, whatever was reserved or half written after it. */
class LogFileTest {

    private static long append(MemorySegment log, long offset, String text) {
        byte[] payload = text.getBytes(StandardCharsets.UTF_8);
        LogFile.encode(log.asSlice(offset), payload);
        return offset + LogFile.recordBytes(payload.length);
    }

    @Test
    void recoveryStopsAtTheFirstRecordThatWasNotCompletelyWritten() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment log = arena.allocate(4096, 8);
            long end = append(log, LogFile.FIRST_RECORD, "one");
            end = append(log, end, "two, a little longer");
            long third = end;
            long afterThird = append(log, third, "three");
            append(log, afterThird, "four");
            assertThat(LogFile.recover(log)).extracting(LogFile.Entry::text).containsExactly("one",
                    "two, a little longer", "three", "four");

            // the third record's payload did not all reach the file (a crash before its Flush)
            log.set(ValueLayout.JAVA_BYTE, third + LogFile.HEADER_BYTES + 2, (byte) 'X');
            List<LogFile.Entry> entries = LogFile.recover(log);
            assertThat(entries).extracting(LogFile.Entry::text).containsExactly("one", "two, a little longer");
            assertThat(LogFile.end(entries)).isEqualTo(third); // the next append overwrites it

            // space reserved with FetchAdd but never written: length 0 ends the log
            log.asSlice(third, 8).fill((byte) 0);
            assertThat(LogFile.recover(log)).hasSize(2);
        }
    }

    @Test
    void anEmptyLogStartsAtTheFirstRecordAndRecordsAreAligned() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment log = arena.allocate(1024, 8);
            assertThat(LogFile.recover(log)).isEmpty();
            assertThat(LogFile.end(List.of())).isEqualTo(LogFile.FIRST_RECORD);
            assertThat(LogFile.recordBytes(0)).isEqualTo(8);
            assertThat(LogFile.recordBytes(1)).isEqualTo(16);
            assertThat(LogFile.recordBytes(8)).isEqualTo(16);
            // a length that runs past the end of the mapping is not a record
            log.set(ValueLayout.JAVA_INT, LogFile.FIRST_RECORD, 4096);
            assertThat(LogFile.recover(log)).isEmpty();
        }
    }
}
