/**
 * The software RNIC behind the Verbs facade: QP engine, memory and STag tables, completion
 * queues, and the netty transport.
 */
module io.jrnic.core {
    requires transitive io.jrnic.api;
    requires io.jrnic.rdmap;
    requires io.netty.buffer;
    requires io.netty.transport;
    requires org.slf4j;

    exports io.jrnic.core;
}
