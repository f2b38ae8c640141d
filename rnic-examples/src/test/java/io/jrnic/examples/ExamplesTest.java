package io.jrnic.examples;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every example as the README runs it (issue 14): its server and its client in two child JVMs over
 * loopback TCP, each bounded by {@link Examples#PROCESS_TIMEOUT_SECONDS} and killed when it
 * overruns; the exit statuses must be 0 and the output must show what each step did.
 */
class ExamplesTest {

    /** Runs an example and returns its relayed output, after checking the exit status. */
    private static String run(String name) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            status = Examples.run(name, out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        System.out.print(output); // in the surefire report
        assertThat(status).as("exit status of '%s'; output:%n%s", name, output).isZero();
        return output;
    }

    @Test
    @Timeout(150)
    void basicsWritesReadsAddsSwapsFlushesAndSends() throws Exception {
        String out = run("basics");
        assertThat(out)
                .contains("[basics client] client: RDMA Write of 65536 bytes completed")
                .contains("[basics client] client: RDMA Read of 65536 bytes matches what was written")
                .contains("[basics client] client: FetchAdd 42: counter was 0")
                .contains("[basics client] client: CmpSwap 42 -> 4242 succeeded")
                .contains("[basics client] client: RDMA Flush of 65536 bytes completed")
                .contains("[basics server] server: received \"hello from ")
                .contains("[basics server] server: region[0, 65536) holds the client's pattern")
                .contains("[basics server] server: counter = 4242")
                .contains("[basics server] server: connection ended, queue pair IDLE")
                .contains("[basics client] client: disconnected, queue pair IDLE")
                .doesNotContain("Exception", "SLF4J(W)");
    }

    @Test
    @Timeout(150)
    void theReadmesProgramWritesIntoTheBasicsServersRegion() throws Exception {
        String out = run("hello");
        assertThat(out)
                .containsPattern("\\[hello client\\] RDMA Write to RemoteBuffer\\[stag=0x[0-9a-f]+, to=0x[0-9a-f]+,"
                        + " length=1048576\\]: SUCCESS")
                .contains("[hello server] server: the client disconnected without a Send; the region starts with"
                        + " \"jjjjjjjjjjjjjjjj\"")
                .doesNotContain("Exception");
    }

    @Test
    void theReadmeShowsHelloAsItIsCompiledAndRun() throws Exception {
        // the README's ```java block after its "Hello.java" marker is this module's Hello.java, from
        // the imports on: what the README shows is what this build compiles and the test above runs
        String readme = Files.readString(Path.of("..", "README.md"));
        int marker = readme.indexOf("<!-- rnic-examples/src/main/java/io/jrnic/examples/Hello.java -->");
        assertThat(marker).as("README marker").isNotNegative();
        int start = readme.indexOf("```java\n", marker) + "```java\n".length();
        String shown = readme.substring(start, readme.indexOf("```", start));
        String source = Files.readString(Path.of("src/main/java/io/jrnic/examples/Hello.java"));
        assertThat(source.substring(source.indexOf("import "))).isEqualTo(shown);
    }

    @Test
    @Timeout(150)
    void aReadPastTheRegionEndsInTheServersTerminate() throws Exception {
        String out = run("error");
        // RFC 5040 §4.8 / §7.2: RDMAP remote protection error, base or bounds violation, sent by the Data Source
        assertThat(out)
                .contains("[error client] client: async event TERMINATE_MESSAGE_RECEIVED")
                .contains("[error client] client: RDMA Read past the region completed with REMOTE_TERMINATION_ERROR")
                .contains("[error client] client: TerminateMessage[RDMAP 0/1/0x01 Remote Protection Error: Base or bounds"
                        + " violation, remote, ")
                .contains("[error client] client: CompletionQueue.take threw INVALID_QP_STATE: QP ")
                .contains("[error client] client: queue pair ERROR")
                .contains("[error server] server: async event IRRQ_BASE_BOUNDS")
                .contains("[error server] server: connection ended, queue pair ERROR; sent Terminate RDMAP 0/1/0x01")
                .doesNotContain("Exception in thread");
    }

    @Test
    @Timeout(150)
    void kvClientsGetWithRdmaReadsWhatTheyPut() throws Exception {
        String out = run("kv");
        assertThat(out)
                .contains("[kv client] client: 100 PUTs (Send, applied by the server)")
                .contains("[kv client] client: 100 GETs (RDMA Read, no server CPU) returned what was stored")
                .contains("[kv client] client: key-7 updated to version 2, get key-7 = seven")
                .contains("[kv client] client: get no-such-key = null")
                .containsPattern("\\[kv client\\] client: [0-9]+ GETs raced 300 PUTs of one key: every value read was"
                        + " one that was PUT; [0-9]+ torn reads caught by the checksum and repeated")
                .contains("[kv server] server: session 1 ended after 102 PUTs, queue pair IDLE")
                .contains("[kv server] server: session 2 ended after 300 PUTs, queue pair IDLE")
                .doesNotContain("Exception", "SLF4J(W)");
    }

    @Test
    @Timeout(200)
    void logRecordsFlushedToTheFileAreReadBackByARestartedServer() throws Exception {
        String out = run("log");
        assertThat(out)
                .contains("[log server] server: recovered 0 records")
                .contains("[log client] client: appended \"first record\" at offset 64, persistent")
                .contains("[log client] client: appended \"second record\" at offset 88, persistent")
                .contains("[log client] client: appended \"third record\" at offset 112, persistent")
                .contains("[log server] server: recovered 3 records")
                .contains("[log server] server:   @64 first record")
                .contains("[log server] server:   @88 second record")
                .contains("[log server] server:   @112 third record")
                .doesNotContain("Exception", "SLF4J(W)");
    }
}
