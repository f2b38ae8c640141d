package io.jrnic.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * jrnic on the module path, as the README tells applications to run it (issue 14): the surefire
 * tests run on the class path, so this compiles a small application module against io.jrnic.api
 * alone and runs it in a child JVM with {@code --module-path} made of this build's own module
 * outputs (no {@code mvn install} needed) and the README's {@code --add-opens}. The application
 * opens two RNICs through {@code Rnic.open} (ServiceLoader over module-info's provides/uses),
 * connects them over loopback TCP and checks an RDMA Write, a Read and a Send.
 */
class ModulePathTest {
    private static final String[] MODULE_CLASSES = {
        "io.jrnic.api.Rnic", "io.jrnic.core.SoftRnic", "io.jrnic.rdmap.AtomicOps", "io.jrnic.ddp.DdpError",
        "io.jrnic.mpa.Crc32c", "io.netty.buffer.ByteBuf", "io.netty.util.concurrent.Future", "io.netty.channel.Channel",
        "io.netty.resolver.AddressResolver", "io.netty.channel.epoll.Epoll", "io.netty.channel.unix.Socket",
        "org.slf4j.Logger",
    };

    @Test
    void anApplicationModuleConnectsAndMovesDataOnTheModulePath(@TempDir Path dir) throws Exception {
        Set<String> modulePath = new LinkedHashSet<>();
        for (String name : MODULE_CLASSES) {
            modulePath.add(locationOf(Class.forName(name)));
        }
        Path src = dir.resolve("src");
        copyResource("module-info.java", src);
        copyResource("app/Main.java", src);
        Path out = dir.resolve("out");
        // compiled against rnic-api alone: the application needs nothing of the implementation
        String[] javac = {"--release", "25", "-d", out.toString(), "--module-path", locationOf(io.jrnic.api.Rnic.class),
            src.resolve("module-info.java").toString(), src.resolve("app/Main.java").toString()};
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        PrintStream ps = new PrintStream(diagnostics, true, StandardCharsets.UTF_8);
        int rc = ToolProvider.findFirst("javac").orElseThrow().run(ps, ps, javac);
        assertThat(rc).as("javac: %s", diagnostics).isZero();

        // netty's native epoll library is a module of its own with no classes: on the module path it
        // is resolved only when asked for (docs/packaging.md); where it loads, the application then
        // runs with IoTransport.EPOLL, which Rnic.open refuses unless epoll really loads
        String nativeEpoll = nativeEpollJar();
        boolean epoll = nativeEpoll != null && io.netty.channel.epoll.Epoll.isAvailable();
        if (epoll) {
            modulePath.add(nativeEpoll);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m",
                "--enable-native-access=io.netty.common",
                "--add-modules", epoll ? "io.netty.transport.epoll.linux." + nativeArch() : "io.jrnic.core",
                "-Dapp.ioTransport=" + (epoll ? "EPOLL" : "AUTO"),
                // README "Embedding jrnic: JVM options", module-path form
                "--add-opens", "java.base/java.nio=io.jrnic.core", "--add-opens", "java.base/sun.nio.ch=io.netty.transport",
                "-Dio.netty.tryReflectionSetAccessible=true",
                "--module-path", String.join(File.pathSeparator, modulePath) + File.pathSeparator + out,
                "-m", "jrnic.modulepath.app/app.Main"));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            try (InputStream in = p.getInputStream()) {
                in.transferTo(output);
            } catch (IOException e) {
                // the process ended
            }
        });
        boolean finished = p.waitFor(60, TimeUnit.SECONDS);
        if (!finished) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        reader.join(TimeUnit.SECONDS.toMillis(10));
        String text = output.toString(StandardCharsets.UTF_8);
        assertThat(finished).as("the application ended within 60 s: %s", text).isTrue();
        assertThat(p.exitValue()).as("exit status; output:%n%s", text).isZero();
        assertThat(text).contains("module path OK").contains("epoll available: " + epoll)
                .contains("java.nio open to io.jrnic.core: true")
                .contains("sun.nio.ch open to io.netty.transport: true")
                .doesNotContain("IllegalAccessError", "Unknown module");
    }

    /** netty's name of this machine's architecture in its native jars' classifiers. */
    private static String nativeArch() {
        String arch = System.getProperty("os.arch");
        return arch.equals("amd64") || arch.equals("x86_64") ? "x86_64" : arch.equals("aarch64") ? "aarch_64" : arch;
    }

    /** The native epoll jar of this machine on the test class path, or null. */
    private static String nativeEpollJar() {
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = Path.of(entry).getFileName().toString();
            if (name.startsWith("netty-transport-native-epoll-") && name.endsWith("-linux-" + nativeArch() + ".jar")) {
                return entry;
            }
        }
        return null;
    }

    private static String locationOf(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static void copyResource(String name, Path dir) throws IOException {
        Path target = dir.resolve(name);
        Files.createDirectories(target.getParent());
        try (InputStream in = ModulePathTest.class.getResourceAsStream("/module-path-app/" + name)) {
            assertThat(in).as("test resource %s", name).isNotNull();
            Files.copy(in, target);
        }
    }
}
