package io.jrnic.api;

import java.lang.foreign.MemorySegment;

/**
 * A reusable send queue work request (Verbs 1.0 §9.3.1.1 Figure 27) for every SQ operation
 * type, including the RFC 7306 atomics and Immediate Data. Fields not used by the operation type
 * are ignored (V-VERB-PostSQ-2).
 * <ul>
 *   <li>Send types and RDMA Write: the SGL is the data source; {@link #remote(int, long)} gives the
 *       Write sink; {@link #invalidateStag(int)} the remote STag of Send with Invalidate.</li>
 *   <li>RDMA Read types: exactly one SGE is the local sink; {@link #remote(int, long)} the source.</li>
 *   <li>Bind: {@link #bind(int, int, long, long, AddressType, int)}.</li>
 *   <li>Fast-Register: {@link #fastRegister(int, MemorySegment, int, AddressType, long)} and
 *       optionally {@link #verifyHash(VerifyHash)}.</li>
 *   <li>Invalidate Local STag: {@link #invalidateStag(int)} and optionally {@link #localFence(boolean)}.</li>
 *   <li>draft-talpey-rdma-commit-01: {@link #flush(int, long, int, int)},
 *       {@link #verify(int, long, int, byte[])} (at most one SGE, the local sink of the computed
 *       hash) and {@link #atomicWrite(int, long, long)}. They need the RNIC extension of the same
 *       name ({@link RnicExtension}), count against ORD like a Read and complete when the peer's
 *       response arrives.</li>
 *   <li>RFC 7306 atomics: {@link #fetchAdd(long, long)} or {@link #compareSwap(long, long, long, long)}
 *       (plain forms {@link #fetchAdd(long)}, {@link #compareSwap(long, long)}), the target through
 *       {@link #remote(int, long)}, exactly one 8-byte SGE with Local Write that receives the
 *       original remote value.</li>
 *   <li>RFC 7306 Immediate Data: {@link #immediateData(long, boolean)}, no SGE.</li>
 * </ul>
 *
 * <p>Thread safety: not thread safe; copied by the post verbs, so it may be reused immediately.
 */
public final class SendWorkRequest extends ScatterGatherList {
    private long wrId;
    private Opcode opcode;
    private boolean signaled = true;
    private boolean readFence;
    private boolean localFence;
    private boolean inline;
    private int remoteStag;
    private long remoteTo;
    private int invalidateStag;
    private int windowStag;
    private int regionStag;
    private long bindVirtualAddress;
    private long bindLength;
    private AddressType addressType = AddressType.VA_BASED;
    private int accessRights;
    private MemorySegment fastRegisterMemory;
    private long fastRegisterVirtualAddress;
    private int remoteLength;
    private int flushFlags;
    private long atomicWriteData;
    private byte[] expectedHash;
    private VerifyHash verifyHash;

    /** RDMA Flush disposition: make the range persistent (draft §3.1.1.1, flag 0x01). */
    public static final int FLUSH_PERSISTENCE = 0x01;
    /** RDMA Flush disposition: make the range globally visible (draft §3.1.1.1, flag 0x02). */
    public static final int FLUSH_GLOBAL_VISIBILITY = 0x02;
    /** The longest expected hash an RDMA Verify may carry. */
    public static final int MAX_HASH_LENGTH = 64;
    // RFC 7306 §5.2.1: the operands of an Atomic Request; §6: the 8 bytes of Immediate Data
    private long addOrSwapData;
    private long addOrSwapMask;
    private long compareData;
    private long compareMask = ALL_ONES;
    private long immediateData;

    /** A mask with every bit set: plain CmpSwap compares and swaps all 64 bits (A-ATOM-019). */
    public static final long ALL_ONES = 0xFFFF_FFFF_FFFF_FFFFL;

    /** Creates a request with room for 16 SGEs. */
    public SendWorkRequest() {
        this(16);
    }

    /**
     * Creates a request.
     *
     * @param maxSge SGE capacity
     */
    public SendWorkRequest(int maxSge) {
        super(maxSge);
    }

    /**
     * Clears every field (signaled becomes true, address type VA-based).
     *
     * @return this
     */
    public SendWorkRequest reset() {
        clearSges();
        wrId = 0;
        opcode = null;
        signaled = true;
        readFence = false;
        localFence = false;
        inline = false;
        remoteStag = 0;
        remoteTo = 0;
        invalidateStag = 0;
        windowStag = 0;
        regionStag = 0;
        bindVirtualAddress = 0;
        bindLength = 0;
        addressType = AddressType.VA_BASED;
        accessRights = 0;
        fastRegisterMemory = null;
        fastRegisterVirtualAddress = 0;
        remoteLength = 0;
        flushFlags = 0;
        atomicWriteData = 0;
        expectedHash = null;
        verifyHash = null;
        addOrSwapData = 0;
        addOrSwapMask = 0;
        compareData = 0;
        compareMask = ALL_ONES;
        immediateData = 0;
        return this;
    }

    /**
     * Sets the WR ID.
     *
     * @param wrId 64-bit consumer value
     * @return this
     */
    public SendWorkRequest wrId(long wrId) {
        this.wrId = wrId;
        return this;
    }

    /**
     * Sets the operation type.
     *
     * @param opcode any SQ operation type
     * @return this
     */
    public SendWorkRequest opcode(Opcode opcode) {
        this.opcode = opcode;
        return this;
    }

    /**
     * Completion Notification Type (only used when the QP does not signal all WRs).
     *
     * @param signaled true for Signaled
     * @return this
     */
    public SendWorkRequest signaled(boolean signaled) {
        this.signaled = signaled;
        return this;
    }

    /**
     * Read Fence indicator (Send types and RDMA Write, Verbs §8.2.2.2).
     *
     * @param readFence the indicator
     * @return this
     */
    public SendWorkRequest readFence(boolean readFence) {
        this.readFence = readFence;
        return this;
    }

    /**
     * Local Fence indicator (Invalidate Local STag, Verbs §8.2.2.2).
     *
     * @param localFence the indicator
     * @return this
     */
    public SendWorkRequest localFence(boolean localFence) {
        this.localFence = localFence;
        return this;
    }

    /**
     * Inline data (library extension): the SGL bytes are copied into the WQE at post time, so the
     * source buffers are free when the post returns and need no registration check later.
     *
     * @param inline the flag
     * @return this
     */
    public SendWorkRequest inline(boolean inline) {
        this.inline = inline;
        return this;
    }

    /**
     * Appends an SGE.
     *
     * @param stag   the STag
     * @param to     the TO
     * @param length bytes
     * @return this
     */
    public SendWorkRequest sge(int stag, long to, int length) {
        appendSge(stag, to, length);
        return this;
    }

    /**
     * Remote Address (RDMA Write sink, RDMA Read source).
     *
     * @param stag the remote STag
     * @param to   the remote TO
     * @return this
     */
    public SendWorkRequest remote(int stag, long to) {
        this.remoteStag = stag;
        this.remoteTo = to;
        return this;
    }

    /**
     * Remote Address from a peer's buffer descriptor: its STag and TO (RDMA Write sink, RDMA Read
     * source, atomic target). The length is the application's to respect.
     *
     * @param buffer the remote buffer (or a {@link RemoteBuffer#slice(long, long) slice} of it)
     * @return this
     */
    public SendWorkRequest remote(RemoteBuffer buffer) {
        return remote(buffer.stag(), buffer.to());
    }

    /**
     * The STag to invalidate: the remote STag of Send with Invalidate, or the target of
     * Invalidate Local STag.
     *
     * @param stag the STag (index and key)
     * @return this
     */
    public SendWorkRequest invalidateStag(int stag) {
        this.invalidateStag = stag;
        return this;
    }

    /**
     * Bind Memory Window modifiers (Verbs §9.3.1.1 Figure 27).
     *
     * @param windowStag     window STag index with the new key (index &lt;&lt; 8 | newKey)
     * @param regionStag     STag (index and key) of the region to bind to
     * @param virtualAddress TO in the region of the window's first byte
     * @param length         window length
     * @param addressType    addressing of the window
     * @param accessRights   REMOTE_READ and/or REMOTE_WRITE (plus extension rights)
     * @return this
     */
    public SendWorkRequest bind(int windowStag, int regionStag, long virtualAddress, long length,
                                AddressType addressType, int accessRights) {
        this.opcode = Opcode.BIND_MW;
        this.windowStag = windowStag;
        this.regionStag = regionStag;
        this.bindVirtualAddress = virtualAddress;
        this.bindLength = length;
        this.addressType = addressType;
        this.accessRights = accessRights;
        return this;
    }

    /**
     * Fast-Register Non-Shared Memory Region modifiers; the native segment plays the role of the
     * physical buffer list (its pages are the PBL entries).
     *
     * @param stag           STag index from Allocate STag with the new key
     * @param memory         the native memory to map
     * @param accessRights   region rights
     * @param addressType    VA-based or zero-based
     * @param virtualAddress base VA for VA-based
     * @return this
     */
    public SendWorkRequest fastRegister(int stag, MemorySegment memory, int accessRights, AddressType addressType,
                                        long virtualAddress) {
        this.opcode = Opcode.FAST_REGISTER;
        this.regionStag = stag;
        this.fastRegisterMemory = memory;
        this.accessRights = accessRights;
        this.addressType = addressType;
        this.fastRegisterVirtualAddress = virtualAddress;
        return this;
    }

    /**
     * The Verify hash a Fast-Register binds to the region (draft-talpey-rdma-commit-01 §2.4,
     * C-VERIFY-002); without it (or after {@link #reset()}) the region gets {@link VerifyHash#SHA_256}.
     * Ignored by every other operation type.
     *
     * @param verifyHash the region's hash, or null for the default
     * @return this
     */
    public SendWorkRequest verifyHash(VerifyHash verifyHash) {
        this.verifyHash = verifyHash;
        return this;
    }

    /**
     * The Verify hash of a Fast-Register.
     *
     * @return the hash, or null for the default {@link VerifyHash#SHA_256}
     */
    public VerifyHash verifyHash() {
        return verifyHash;
    }

    /**
     * RDMA Flush (draft-talpey-rdma-commit-01 §3.1.1): asks the peer to make the bytes
     * {@code [to, to + length)} of its {@code stag} persistent and/or globally visible, after every
     * earlier RDMA Write of this QP was placed. Flags 0 are an ordering barrier (checklist AMB-56);
     * a zero length is not checked against the STag (C-FLUSH-056).
     *
     * @param stag   the remote STag
     * @param to     the remote TO of the first byte
     * @param length bytes (unsigned 32 bits)
     * @param flags  {@link #FLUSH_PERSISTENCE} and/or {@link #FLUSH_GLOBAL_VISIBILITY}
     * @return this
     * @throws IllegalArgumentException for a flag bit the draft does not define
     */
    public SendWorkRequest flush(int stag, long to, int length, int flags) {
        if ((flags & ~(FLUSH_PERSISTENCE | FLUSH_GLOBAL_VISIBILITY)) != 0) {
            throw new IllegalArgumentException("flush flags 0x" + Integer.toHexString(flags)
                    + " have bits other than FLUSH_PERSISTENCE (0x01) and FLUSH_GLOBAL_VISIBILITY (0x02)");
        }
        this.opcode = Opcode.RDMA_FLUSH;
        this.remoteStag = stag;
        this.remoteTo = to;
        this.remoteLength = length;
        this.flushFlags = flags;
        return this;
    }

    /**
     * RDMA Verify (draft-talpey-rdma-commit-01 §3.1.2): the peer hashes {@code [to, to + length)} of
     * its {@code stag} and, when {@code expectedHash} is given, compares it: a mismatch terminates
     * the connection. The hash algorithm is the one the peer bound to its region at registration
     * ({@link VerifyHash}, SHA-256 by default), known out of band: an expected hash of another
     * length than that algorithm's output fails like a mismatch. The computed hash (the Verify
     * Response, 1 to {@link #MAX_HASH_LENGTH} bytes) is written into this request's SGE when it has
     * one (Local Write); a shorter SGE receives the leading bytes. The array is copied at post time.
     *
     * @param stag         the remote STag
     * @param to           the remote TO of the first byte
     * @param length       bytes (unsigned 32 bits)
     * @param expectedHash the hash to compare with, or null for a scrub that only returns the hash
     * @return this
     * @throws IllegalArgumentException for an empty hash or one longer than {@link #MAX_HASH_LENGTH}
     */
    public SendWorkRequest verify(int stag, long to, int length, byte[] expectedHash) {
        if (expectedHash != null && (expectedHash.length == 0 || expectedHash.length > MAX_HASH_LENGTH)) {
            throw new IllegalArgumentException("expected hash must have 1.." + MAX_HASH_LENGTH + " bytes, had "
                    + expectedHash.length);
        }
        this.opcode = Opcode.RDMA_VERIFY;
        this.remoteStag = stag;
        this.remoteTo = to;
        this.remoteLength = length;
        this.expectedHash = expectedHash;
        return this;
    }

    /**
     * Atomic Write (draft-talpey-rdma-commit-01 §3.1.3): the peer stores {@code value} at its
     * {@code stag}/{@code to} in one indivisible 8-byte store, after every earlier request of this
     * QP completed. The target must be 8-byte aligned at the peer (its check, C-AW-015).
     *
     * @param stag  the remote STag
     * @param to    the remote TO
     * @param value the 64-bit value
     * @return this
     */
    public SendWorkRequest atomicWrite(int stag, long to, long value) {
        this.opcode = Opcode.ATOMIC_WRITE;
        this.remoteStag = stag;
        this.remoteTo = to;
        this.remoteLength = 8;
        this.atomicWriteData = value;
        return this;
    }

    /**
     * Flush / Verify: length of the remote range; Atomic Write: 8.
     *
     * @return bytes (unsigned 32 bits)
     */
    public int remoteLength() {
        return remoteLength;
    }

    /**
     * Flush disposition flags.
     *
     * @return {@link #FLUSH_PERSISTENCE} | {@link #FLUSH_GLOBAL_VISIBILITY} bits
     */
    public int flushFlags() {
        return flushFlags;
    }

    /**
     * Atomic Write value.
     *
     * @return the 64-bit value
     */
    public long atomicWriteData() {
        return atomicWriteData;
    }

    /**
     * Verify: the expected hash (not copied), or null.
     *
     * @return the array or null
     */
    public byte[] expectedHash() {
        return expectedHash;
    }

    /**
     * WR ID.
     *
     * @return the id
     */
    public long wrId() {
        return wrId;
    }

    /**
     * Operation type.
     *
     * @return the opcode or null
     */
    public Opcode opcode() {
        return opcode;
    }

    /**
     * Signaled flag.
     *
     * @return the flag
     */
    public boolean signaled() {
        return signaled;
    }

    /**
     * Read Fence.
     *
     * @return the flag
     */
    public boolean readFence() {
        return readFence;
    }

    /**
     * Local Fence.
     *
     * @return the flag
     */
    public boolean localFence() {
        return localFence;
    }

    /**
     * Inline flag.
     *
     * @return the flag
     */
    public boolean inline() {
        return inline;
    }

    /**
     * Remote STag.
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
     * STag to invalidate.
     *
     * @return the STag
     */
    public int invalidateStag() {
        return invalidateStag;
    }

    /**
     * Bind: window STag with new key.
     *
     * @return the STag
     */
    public int windowStag() {
        return windowStag;
    }

    /**
     * Bind: region STag; Fast-Register: the STag being registered.
     *
     * @return the STag
     */
    public int regionStag() {
        return regionStag;
    }

    /**
     * Bind: TO of the window's first byte.
     *
     * @return the VA
     */
    public long bindVirtualAddress() {
        return bindVirtualAddress;
    }

    /**
     * Bind: window length.
     *
     * @return the length
     */
    public long bindLength() {
        return bindLength;
    }

    /**
     * Bind / Fast-Register addressing.
     *
     * @return the type
     */
    public AddressType addressType() {
        return addressType;
    }

    /**
     * Bind / Fast-Register rights.
     *
     * @return the rights
     */
    public int accessRights() {
        return accessRights;
    }

    /**
     * Fast-Register memory.
     *
     * @return the segment or null
     */
    public MemorySegment fastRegisterMemory() {
        return fastRegisterMemory;
    }

    /**
     * Fast-Register base VA.
     *
     * @return the VA
     */
    public long fastRegisterVirtualAddress() {
        return fastRegisterVirtualAddress;
    }

    /**
     * Makes this a plain RFC 7306 FetchAdd (§5.1.1): an ordinary 64-bit add modulo 2^64 (add mask 0).
     * Name the target with {@link #remote(int, long)} and the 8-byte result buffer with one SGE.
     *
     * @param addData the value to add
     * @return this
     */
    public SendWorkRequest fetchAdd(long addData) {
        return fetchAdd(addData, 0);
    }

    /**
     * Makes this a masked RFC 7306 FetchAdd (§5.1.1, A-ATOM-016): each 1 bit of {@code addMask}
     * marks the most significant bit of an independent field whose carry out is dropped.
     *
     * @param addData the value to add
     * @param addMask field boundaries (0: one 64-bit field)
     * @return this
     */
    public SendWorkRequest fetchAdd(long addData, long addMask) {
        this.opcode = Opcode.ATOMIC_FETCH_ADD;
        this.addOrSwapData = addData;
        this.addOrSwapMask = addMask;
        this.compareData = 0; // §5.2.1 Figure 5: sent as 0 / all-ones for FetchAdd (AMB-22)
        this.compareMask = ALL_ONES;
        return this;
    }

    /**
     * Makes this a plain RFC 7306 CmpSwap (§5.1.2): compare and swap all 64 bits (masks all-ones,
     * A-ATOM-019).
     *
     * @param compareData the value the target must hold
     * @param swapData    the value stored when it does
     * @return this
     */
    public SendWorkRequest compareSwap(long compareData, long swapData) {
        return compareSwap(compareData, ALL_ONES, swapData, ALL_ONES);
    }

    /**
     * Makes this a masked RFC 7306 CmpSwap (§5.1.2, A-ATOM-018): if the target's bits under
     * {@code compareMask} equal those of {@code compareData}, its bits under {@code swapMask} are
     * replaced by those of {@code swapData}. An unconditional swap is compare mask 0 (AMB-21).
     *
     * @param compareData the compare operand
     * @param compareMask the bits compared
     * @param swapData    the swap operand
     * @param swapMask    the bits replaced
     * @return this
     */
    public SendWorkRequest compareSwap(long compareData, long compareMask, long swapData, long swapMask) {
        this.opcode = Opcode.ATOMIC_CMP_SWAP;
        this.compareData = compareData;
        this.compareMask = compareMask;
        this.addOrSwapData = swapData;
        this.addOrSwapMask = swapMask;
        return this;
    }

    /**
     * Makes this an RFC 7306 Immediate Data message (§6): 8 bytes that consume one receive WQE at
     * the peer and complete it with the data (no SGE).
     *
     * @param data      the 8 bytes, sent big-endian (the receiver gets the same {@code long})
     * @param solicited whether to send Immediate Data with Solicited Event
     * @return this
     */
    public SendWorkRequest immediateData(long data, boolean solicited) {
        this.opcode = solicited ? Opcode.IMMEDIATE_DATA_SE : Opcode.IMMEDIATE_DATA;
        this.immediateData = data;
        return this;
    }

    /** {@return the FetchAdd Add Data or the CmpSwap Swap Data} */
    public long addOrSwapData() {
        return addOrSwapData;
    }

    /** {@return the FetchAdd Add Mask or the CmpSwap Swap Mask} */
    public long addOrSwapMask() {
        return addOrSwapMask;
    }

    /** {@return the CmpSwap Compare Data (0 for FetchAdd)} */
    public long compareData() {
        return compareData;
    }

    /** {@return the CmpSwap Compare Mask (all-ones for FetchAdd and plain CmpSwap)} */
    public long compareMask() {
        return compareMask;
    }

    /** {@return the 8 bytes of an Immediate Data WR} */
    public long immediateData() {
        return immediateData;
    }
}
