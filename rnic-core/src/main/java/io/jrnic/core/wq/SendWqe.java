package io.jrnic.core.wq;

import io.jrnic.api.AddressType;
import io.jrnic.api.Opcode;
import io.jrnic.api.SendWorkRequest;
import io.jrnic.api.VerifyHash;
import io.jrnic.api.WorkCompletionStatus;

import java.lang.foreign.MemorySegment;

/**
 * A send queue WQE: the copy of a {@link SendWorkRequest} in a preallocated slot of the QP's SQ
 * ring (Verbs 1.0 §8.1.1). Inline data is copied into the slot's own buffer at post time. The
 * transport reads wire WQEs through the public accessors.
 *
 * <p>Thread safety: guarded by the owning QP's lock; the transport may read a WQE it was handed
 * until it reports the WQE complete.
 */
public final class SendWqe extends WorkQueueElement {
    public long wrId;
    public Opcode opcode;
    public boolean signaled;
    public boolean readFence;
    public boolean localFence;
    public boolean inline;
    public final byte[] inlineData;
    public int inlineLength;
    public int remoteStag;
    public long remoteTo;
    public int invalidateStag;
    public int windowStag;
    public int regionStag;
    public long bindVirtualAddress;
    public long bindLength;
    public AddressType addressType;
    public int accessRights;
    public MemorySegment fastRegisterMemory;
    public long fastRegisterVirtualAddress;
    /** Fast-Register: the region's Verify hash, null for the default (C-VERIFY-002). */
    public VerifyHash verifyHash;
    /** Commit draft: remote range length (Flush, Verify), 8 for Atomic Write. */
    public int remoteLength;
    /** Commit draft: Flush disposition flags. */
    public int flushFlags;
    /** Commit draft: Atomic Write value. */
    public long atomicWriteData;
    /** Commit draft: the Verify's expected hash, copied at post time (length {@link #expectedHashLength}). */
    final byte[] expectedHash = new byte[SendWorkRequest.MAX_HASH_LENGTH];
    /** Commit draft: bytes of {@link #expectedHash} in use; 0 for none. */
    public int expectedHashLength;
    /** {@link #expectedHash} as a segment, made once so that encoding a Verify allocates nothing. */
    public final MemorySegment expectedHashSegment = MemorySegment.ofArray(expectedHash);
    /** Set at post time when inline data could not be gathered; reported when processed. */
    public WorkCompletionStatus postError;
    public boolean done;
    public boolean inFlight;
    public WorkCompletionStatus status;
    /** Inline payload as a segment, made once so that transmitting it allocates nothing. */
    public final MemorySegment inlineSegment;
    /**
     * SGE memory, resolved at the WQE's SQ position: by the QP's local checks, which look each STag
     * up once for both ({@link #sgesResolved}), else by the engine when the WQE is handed over.
     */
    public final MemorySegment[] sgeMemory;
    /** Offsets of the SGEs in {@link #sgeMemory}. */
    public final long[] sgeOffset;
    /** Whether {@link #sgeMemory} and {@link #sgeOffset} hold this WQE's SGEs (cleared by each copy). */
    public boolean sgesResolved;
    /** Engine: next WQE in the engine's intrusive FIFOs (inbox, awaiting LLP hand-off). */
    public SendWqe txNext;
    // RFC 7306: atomic operands and Immediate Data (copied from the WR)
    public long addOrSwapData;
    public long addOrSwapMask;
    public long compareData;
    public long compareMask;
    public long immediateData;
    /** Engine: token of the last FPDU of this WQE's message. */
    public long txToken;

    public SendWqe(int maxSge, int maxInline) {
        super(maxSge);
        inlineData = new byte[maxInline];
        inlineSegment = MemorySegment.ofArray(inlineData);
        sgeMemory = new MemorySegment[maxSge];
        sgeOffset = new long[maxSge];
    }

    public void copyFrom(SendWorkRequest wr, boolean signalAll) {
        wrId = wr.wrId();
        opcode = wr.opcode();
        signaled = signalAll || wr.signaled();
        readFence = wr.readFence();
        localFence = wr.localFence();
        inline = wr.inline();
        copySges(wr);
        inlineLength = 0;
        remoteStag = wr.remoteStag();
        remoteTo = wr.remoteTo();
        invalidateStag = wr.invalidateStag();
        windowStag = wr.windowStag();
        regionStag = wr.regionStag();
        bindVirtualAddress = wr.bindVirtualAddress();
        bindLength = wr.bindLength();
        addressType = wr.addressType();
        accessRights = wr.accessRights();
        fastRegisterMemory = wr.fastRegisterMemory();
        fastRegisterVirtualAddress = wr.fastRegisterVirtualAddress();
        verifyHash = wr.verifyHash();
        remoteLength = wr.remoteLength();
        flushFlags = wr.flushFlags();
        atomicWriteData = wr.atomicWriteData();
        byte[] hash = wr.expectedHash();
        expectedHashLength = hash == null ? 0 : hash.length;
        if (hash != null) {
            System.arraycopy(hash, 0, expectedHash, 0, hash.length);
        }
        addOrSwapData = wr.addOrSwapData();
        addOrSwapMask = wr.addOrSwapMask();
        compareData = wr.compareData();
        compareMask = wr.compareMask();
        immediateData = wr.immediateData();
        postError = null;
        sgesResolved = false;
        done = false;
        inFlight = false;
        status = null;
        txNext = null;
    }

    /**
     * The consumer's WR ID.
     *
     * @return the id
     */
    public long wrId() {
        return wrId;
    }

    /**
     * The operation type.
     *
     * @return the opcode
     */
    public Opcode opcode() {
        return opcode;
    }

    /**
     * Whether the payload is inline (then {@link #inlineLength()} bytes of the WQE's own buffer).
     *
     * @return the flag
     */
    public boolean inline() {
        return inline;
    }

    /**
     * Inline payload length.
     *
     * @return bytes
     */
    public int inlineLength() {
        return inlineLength;
    }

    /**
     * Copies the inline payload into {@code dst} at {@code offset}.
     *
     * @param dst    destination
     * @param offset destination offset
     */
    public void copyInline(MemorySegment dst, long offset) {
        MemorySegment.copy(inlineData, 0, dst, java.lang.foreign.ValueLayout.JAVA_BYTE, offset, inlineLength);
    }

    /**
     * Remote STag (RDMA Write sink, RDMA Read source).
     *
     * @return the STag
     */
    public int remoteStag() {
        return remoteStag;
    }

    /**
     * Remote TO.
     *
     * @return the TO
     */
    public long remoteTo() {
        return remoteTo;
    }

    /**
     * STag to invalidate at the peer (Send with Invalidate types).
     *
     * @return the STag
     */
    public int invalidateStag() {
        return invalidateStag;
    }

    /**
     * Whether the Read Fence indicator is set.
     *
     * @return the flag
     */
    public boolean readFence() {
        return readFence;
    }
}
