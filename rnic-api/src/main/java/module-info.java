/**
 * The jrnic Verbs facade (RDMA Verbs specification 1.0): RNIC, protection domains, memory regions
 * and windows, queue pairs, completion queues, shared receive queues and asynchronous events.
 */
module io.jrnic.api {
    exports io.jrnic.api;
}
