/**
 * The jrnic test kit: a JUnit Jupiter extension that gives a test two open RNICs in one JVM with a
 * connected queue pair over loopback TCP ({@link io.jrnic.test.RnicTest}, {@link io.jrnic.test.RnicPair}).
 * It compiles against the Verbs facade alone; the software RNIC (rnic-core) is found at run time
 * through {@link io.jrnic.api.Rnic#open(io.jrnic.api.RnicConfig)}.
 */
module io.jrnic.test {
    requires transitive io.jrnic.api;
    requires transitive org.junit.jupiter.api;

    exports io.jrnic.test;
}
