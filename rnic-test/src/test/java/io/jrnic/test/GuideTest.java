package io.jrnic.test;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The guide's rnic-test example is {@link ReplicationTest} as this build compiles and runs it. */
class GuideTest {
    @Test
    void theGuideShowsReplicationTestAsItIsCompiledAndRun() throws Exception {
        String guide = Files.readString(Path.of("..", "docs", "guide.md"));
        int marker = guide.indexOf("<!-- rnic-test/src/test/java/io/jrnic/test/ReplicationTest.java -->");
        assertThat(marker).as("guide marker").isNotNegative();
        int start = guide.indexOf("```java\n", marker) + "```java\n".length();
        String shown = guide.substring(start, guide.indexOf("```", start));
        String source = Files.readString(Path.of("src/test/java/io/jrnic/test/ReplicationTest.java"));
        assertThat(source.substring(source.indexOf("import "))).isEqualTo(shown);
    }
}
