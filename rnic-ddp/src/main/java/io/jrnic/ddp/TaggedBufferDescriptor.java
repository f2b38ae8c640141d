package io.jrnic.ddp;

/**
 * What a {@link TaggedBufferResolver} knows about one STag, in the terms of the RFC 5041 §7.1
 * tagged checks: is the STag valid, is it associated with this DDP stream, does its buffer allow
 * placement, and which range of Tagged Offsets is legal.
 *
 * <pre>
 *   legal TOs: [baseTaggedOffset, baseTaggedOffset + length)     unsigned 64-bit
 * </pre>
 *
 * <p>One instance is owned by a {@link DdpReceiver} and refilled for every lookup, so looking up an
 * STag allocates nothing. The {@linkplain #attachment() attachment} lets the resolver hand the
 * region object (for example the memory region and its {@code MemorySegment}) through to the code
 * that places the payload, so the STag table is searched once per segment.
 *
 * <p>Not thread-safe: used only by the thread that drives its receiver.
 */
public final class TaggedBufferDescriptor {

    /** The outcome of an STag lookup. */
    public enum Status {
        /** No such STag, or it is invalidated or otherwise unusable: TAGGED_INVALID_STAG. */
        INVALID,
        /** The STag is valid but not associated with this DDP stream (e.g. another PD or QP): TAGGED_STAG_NOT_ASSOCIATED. */
        NOT_ASSOCIATED,
        /** The STag is valid for this stream; range and access fields are meaningful. */
        VALID
    }

    private Status status = Status.INVALID;
    private long baseTaggedOffset;
    private long length;
    private boolean placementAllowed;
    private Object attachment;

    /** Creates a descriptor in the {@link Status#INVALID} state. */
    public TaggedBufferDescriptor() {
    }

    /**
     * Describes a valid STag associated with this stream.
     *
     * @param baseTaggedOffset the first legal TO, an unsigned 64-bit value (the region's base
     *                         virtual address for VA-based STags, 0 for zero-based ones)
     * @param length           the number of legal TOs, an unsigned 64-bit value
     * @param placementAllowed whether the buffer permits placement by this segment (the access
     *                         right the segment needs is granted)
     * @param attachment       any object the resolver wants handed to the placing code, or null
     * @return this descriptor
     */
    public TaggedBufferDescriptor valid(long baseTaggedOffset, long length, boolean placementAllowed, Object attachment) {
        this.status = Status.VALID;
        this.baseTaggedOffset = baseTaggedOffset;
        this.length = length;
        this.placementAllowed = placementAllowed;
        this.attachment = attachment;
        return this;
    }

    /**
     * Describes an STag that is valid but not associated with this DDP stream.
     *
     * @return this
     */
    public TaggedBufferDescriptor notAssociated() {
        clear();
        this.status = Status.NOT_ASSOCIATED;
        return this;
    }

    /**
     * Describes an unknown or unusable STag; also the state before each lookup.
     *
     * @return this
     */
    public TaggedBufferDescriptor invalid() {
        clear();
        return this;
    }

    void clear() {
        this.status = Status.INVALID;
        this.baseTaggedOffset = 0;
        this.length = 0;
        this.placementAllowed = false;
        this.attachment = null;
    }

    /** {@return the lookup outcome} */
    public Status status() {
        return status;
    }

    /** {@return the first legal TO (unsigned); meaningful when {@link Status#VALID}} */
    public long baseTaggedOffset() {
        return baseTaggedOffset;
    }

    /** {@return the number of legal TOs (unsigned); meaningful when {@link Status#VALID}} */
    public long length() {
        return length;
    }

    /** {@return whether the buffer permits placement; meaningful when {@link Status#VALID}} */
    public boolean placementAllowed() {
        return placementAllowed;
    }

    /** {@return the resolver's attachment, or null} */
    public Object attachment() {
        return attachment;
    }

    @Override
    public String toString() {
        return status != Status.VALID ? "TaggedBuffer[" + status + "]" : String.format(
                "TaggedBuffer[VALID base=0x%x length=%s placement=%b]",
                baseTaggedOffset, Long.toUnsignedString(length), placementAllowed);
    }
}
