/**
 * RDMAP (RFC 5040) with RFC 7306 atomics and immediate data and the RDMA Flush / Verify / Atomic
 * Write messages of draft-talpey-rdma-commit-01: opcodes, headers, Terminate. No I/O.
 */
module io.jrnic.rdmap {
    requires transitive io.jrnic.ddp;

    exports io.jrnic.rdmap;
}
