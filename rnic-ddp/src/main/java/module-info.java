/**
 * DDP, Direct Data Placement over reliable transports (RFC 5041): tagged and untagged headers,
 * segmentation, per-queue reassembly and validation state. No I/O.
 */
module io.jrnic.ddp {
    requires transitive io.jrnic.mpa;

    exports io.jrnic.ddp;
}
