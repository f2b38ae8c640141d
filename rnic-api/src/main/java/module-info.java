/**
 * The jrnic Verbs facade (RDMA Verbs specification 1.0): RNIC, protection domains, memory regions
 * and windows, queue pairs, completion queues, shared receive queues and asynchronous events.
 * {@link io.jrnic.api.Rnic#open(io.jrnic.api.RnicConfig)} finds the implementation (rnic-core) as
 * an {@link io.jrnic.api.spi.RnicProvider} service, so an application compiles against this module
 * alone.
 */
module io.jrnic.api {
    exports io.jrnic.api;
    exports io.jrnic.api.spi;
    // library-only hooks (WorkCompletion filling): the implementation alone may use them
    exports io.jrnic.api.internal to io.jrnic.core;

    uses io.jrnic.api.spi.RnicProvider;
}
