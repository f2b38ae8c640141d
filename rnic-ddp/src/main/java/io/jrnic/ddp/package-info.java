/**
 * DDP (RFC 5041): header flyweights, segmentation of messages into MULPDU-sized segments, and the
 * receive-side validation and reassembly state per untagged queue. Pure codecs; no I/O.
 *
 * <ul>
 *   <li>{@link io.jrnic.ddp.TaggedHeaderFlyweight}, {@link io.jrnic.ddp.UntaggedHeaderFlyweight}: the
 *       14- and 18-byte headers (RFC 5041 §4).</li>
 *   <li>{@link io.jrnic.ddp.DdpSegmenter}: transmit side, one message into segments (RFC 5041 §5.2).</li>
 *   <li>{@link io.jrnic.ddp.DdpReceiver}: receive side, checks of RFC 5041 §7.1, MSN/MO state,
 *       first-error latch; buffers are reached through {@link io.jrnic.ddp.UntaggedBufferResolver}
 *       and {@link io.jrnic.ddp.TaggedBufferResolver}, which the QP layer implements.</li>
 *   <li>{@link io.jrnic.ddp.DdpError}: the error values of RFC 5041 §7.2.</li>
 * </ul>
 */
package io.jrnic.ddp;
