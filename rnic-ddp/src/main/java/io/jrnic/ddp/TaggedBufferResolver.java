package io.jrnic.ddp;

/**
 * Looks up the tagged buffer an inbound tagged segment targets (RFC 5041 §5.1.1, §7.1).
 *
 * <p>The STag table belongs to rnic-core; DDP asks through this interface and then performs the
 * checks of RFC 5041 §7.1 itself from the filled {@link TaggedBufferDescriptor}. {@link DdpReceiver}
 * calls it once per non-zero-length tagged segment (zero-length tagged segments are not checked,
 * RFC 5041 §5.2), passing the segment's RsvdULP octet: for RDMAP it is the control byte, whose opcode
 * tells which access right the placement needs (Remote Write for an RDMA Write, Local Write for an
 * RDMA Read Response).
 *
 * <p>Implementations run on the thread that drives the {@link DdpReceiver}, must not allocate on
 * that path, and report every outcome through the descriptor, never by throwing.
 */
@FunctionalInterface
public interface TaggedBufferResolver {

    /**
     * Describes the buffer behind {@code stag} by calling one of
     * {@link TaggedBufferDescriptor#valid}, {@link TaggedBufferDescriptor#notAssociated} or
     * {@link TaggedBufferDescriptor#invalid} on {@code descriptor}. The descriptor arrives reset to
     * "invalid", so an implementation that finds nothing may simply return.
     *
     * @param stag       the segment's STag
     * @param rsvdUlp    the segment's RsvdULP octet (the RDMAP control byte)
     * @param descriptor the reusable descriptor to fill
     */
    void resolve(int stag, int rsvdUlp, TaggedBufferDescriptor descriptor);
}
