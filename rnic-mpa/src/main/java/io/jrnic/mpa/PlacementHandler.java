package io.jrnic.mpa;

import java.lang.foreign.MemorySegment;

/**
 * An {@link FpduHandler} that can take the payload of an FPDU straight into its final place, for
 * FPDUs that do not arrive whole in one chunk ("header-then-payload" mode of {@link FpduDeframer}).
 *
 * <p>Flow for such an FPDU: after its first ULPDU byte, {@link #prefixLength} says how long its
 * header is; once that many ULPDU bytes are in, {@link #placementTarget} is asked where the rest goes.
 * If it names a target, the remaining ULPDU bytes are written there (markers stripped) instead of
 * into the reassembly buffer, and the transport may even read socket data straight into the target
 * (see {@link FpduDeframer#directWindow()}). When the FPDU has been verified, {@link #onPlaced} is
 * called instead of {@link #onUlpdu}. Placement before verification is what RFC 5041 allows
 * (placed, not yet delivered); delivery waits for the CRC. On a fault, the placed bytes are garbage
 * and {@link #onError} is called.
 *
 * <p>FPDUs lying whole in a chunk, and ULPDUs not longer than their prefix, still go to
 * {@link #onUlpdu} with zero copy; the handler places those itself.
 */
public interface PlacementHandler extends FpduHandler {

    /**
     * How many ULPDU bytes form the header to gather before {@link #placementTarget} is asked, decided
     * from the first ULPDU byte (the DDP control byte: 14 for tagged, 18 or more for untagged).
     *
     * @param firstByte   the first ULPDU byte, 0..255
     * @param ulpduLength ULPDU_Length of the FPDU
     * @return the prefix length; 0, or not less than ulpduLength, to reassemble this ULPDU whole and
     *         receive it through {@link #onUlpdu}
     */
    int prefixLength(int firstByte, int ulpduLength);

    /**
     * Chooses where the ULPDU bytes after the prefix go.
     *
     * @param prefix       the reassembly buffer holding the prefix
     * @param offset       offset of the prefix (the DDP control byte)
     * @param prefixLength length of the prefix
     * @param ulpduLength  ULPDU_Length of the FPDU (greater than prefixLength)
     * @param target       set it to a segment with room for {@code ulpduLength - prefixLength} bytes
     * @return {@code true} if target was set, {@code false} to reassemble the whole ULPDU as usual
     */
    boolean placementTarget(MemorySegment prefix, long offset, int prefixLength, int ulpduLength, PlacementTarget target);

    /**
     * A verified FPDU whose bytes after the prefix are now in the target chosen for it.
     *
     * @param prefix       the reassembly buffer holding the prefix (valid only during the call)
     * @param offset       offset of the prefix
     * @param prefixLength length of the prefix
     * @param ulpduLength  ULPDU_Length
     */
    void onPlaced(MemorySegment prefix, long offset, int prefixLength, int ulpduLength);
}
