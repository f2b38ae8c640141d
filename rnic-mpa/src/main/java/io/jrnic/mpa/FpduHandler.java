package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;

/**
 * Receives what {@link FpduDeframer} finds in the stream. Called on the thread that calls
 * {@link FpduDeframer#consume}; must not call back into the same deframer's {@code consume}.
 */
public interface FpduHandler {

    /**
     * A complete FPDU whose CRC (when enabled) and markers (when enabled) were verified: its ULPDU,
     * contiguous, without markers, pad or CRC (RFC 5044 §4.3: only the ULPDU and its length go to
     * DDP).
     *
     * @param segment either the caller's chunk (zero copy) or the deframer's reassembly buffer; the
     *                bytes are valid only until this method returns
     * @param offset  offset of the first ULPDU byte (the DDP control byte)
     * @param length  ULPDU_Length
     */
    void onUlpdu(MemorySegment segment, long offset, int length);

    /**
     * The stream is broken; called once, after which nothing more is delivered on this half
     * connection (RFC 5044 §8). MPA does not close TCP for CRC or marker errors; the ULP sends a
     * Terminate and tears down.
     *
     * @param fault what went wrong, with its Terminate classification
     */
    void onError(DeframeFault fault);
}
