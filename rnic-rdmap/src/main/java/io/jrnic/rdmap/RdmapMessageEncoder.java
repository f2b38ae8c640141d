package io.jrnic.rdmap;

import io.jrnic.ddp.DdpHeaderFlyweight;
import io.jrnic.ddp.TaggedHeaderFlyweight;
import io.jrnic.ddp.UntaggedHeaderFlyweight;
import io.jrnic.wire.IwarpError;

import java.lang.foreign.MemorySegment;

/**
 * Writes whole ULPDUs of the fixed-format RDMAP messages, DDP header plus RDMAP header, into a
 * buffer: what MPA frames as one FPDU (wire-format.md §1.2, §4). Messages with ULP payload get
 * their headers from {@link #taggedHeader} and {@link #untaggedHeader}; segmentation of payload is
 * DDP's job.
 *
 * <p>Every method returns the number of bytes written. The DDP version (DV) equals the RDMAP
 * version (RV) of the stream: 01 for IETF, 00 for RDMAC peers, never mixed (RFC 5044 App. C).
 * Single-segment messages get L=1 and MO=0; the caller supplies the MSN of the message's queue
 * (each QN counts from 1 per direction). Opcodes that the stream's {@link RdmapFeatures} do not
 * enable are refused with {@link IllegalStateException}, so a draft opcode never reaches a peer that
 * did not opt in (wire-format.md §7 item 10).
 *
 * <p>The encoder holds one flyweight of each kind and re-wraps them, so it allocates nothing per
 * message. Not thread-safe: use one instance per thread (per connection's event loop).
 */
public final class RdmapMessageEncoder {

    /** ULPDU length of a Read Request: 18 + 28. */
    public static final int READ_REQUEST_LENGTH = UntaggedHeaderFlyweight.HEADER_LENGTH
            + ReadRequestHeaderFlyweight.HEADER_LENGTH;
    /** ULPDU length of an Immediate Data message: 18 + 8. */
    public static final int IMMEDIATE_DATA_LENGTH = UntaggedHeaderFlyweight.HEADER_LENGTH
            + ImmediateDataHeaderFlyweight.HEADER_LENGTH;
    /** ULPDU length of an Atomic Request: 18 + 52. */
    public static final int ATOMIC_REQUEST_LENGTH = UntaggedHeaderFlyweight.HEADER_LENGTH
            + AtomicRequestHeaderFlyweight.HEADER_LENGTH;
    /** ULPDU length of an Atomic Response: 18 + 12. */
    public static final int ATOMIC_RESPONSE_LENGTH = UntaggedHeaderFlyweight.HEADER_LENGTH
            + AtomicResponseHeaderFlyweight.HEADER_LENGTH;
    /** ULPDU length of a Flush Request: 18 + 20. */
    public static final int FLUSH_REQUEST_LENGTH = UntaggedHeaderFlyweight.HEADER_LENGTH
            + FlushRequestHeaderFlyweight.HEADER_LENGTH;
    /** ULPDU length of an Atomic Write Request: 18 + 24. */
    public static final int ATOMIC_WRITE_REQUEST_LENGTH = UntaggedHeaderFlyweight.HEADER_LENGTH
            + AtomicWriteRequestHeaderFlyweight.HEADER_LENGTH;
    /** ULPDU length of a Flush or Atomic Write Response: the bare 18-byte untagged header. */
    public static final int EMPTY_RESPONSE_LENGTH = UntaggedHeaderFlyweight.HEADER_LENGTH;
    /** The MSN of the one Terminate a stream sends (QN 2 counts from 1; wire-format.md §4.5). */
    public static final int TERMINATE_MSN = 1;

    private final RdmapFeatures features;
    private final TaggedHeaderFlyweight tagged = new TaggedHeaderFlyweight();
    private final UntaggedHeaderFlyweight untagged = new UntaggedHeaderFlyweight();
    private final ReadRequestHeaderFlyweight readRequest = new ReadRequestHeaderFlyweight();
    private final TerminateHeaderFlyweight terminate = new TerminateHeaderFlyweight();
    private final ImmediateDataHeaderFlyweight immediate = new ImmediateDataHeaderFlyweight();
    private final AtomicRequestHeaderFlyweight atomicRequest = new AtomicRequestHeaderFlyweight();
    private final AtomicResponseHeaderFlyweight atomicResponse = new AtomicResponseHeaderFlyweight();
    private final FlushRequestHeaderFlyweight flushRequest = new FlushRequestHeaderFlyweight();
    private final VerifyRequestHeaderFlyweight verifyRequest = new VerifyRequestHeaderFlyweight();
    private final VerifyResponseHeaderFlyweight verifyResponse = new VerifyResponseHeaderFlyweight();
    private final AtomicWriteRequestHeaderFlyweight atomicWrite = new AtomicWriteRequestHeaderFlyweight();

    /**
     * An encoder for a stream with these features.
     *
     * @param features the RDMAP features negotiated for the stream
     */
    public RdmapMessageEncoder(RdmapFeatures features) {
        if (features == null) {
            throw new IllegalArgumentException("features must not be null");
        }
        this.features = features;
    }

    /** {@return the stream's features} */
    public RdmapFeatures features() {
        return features;
    }

    /**
     * Writes the 14-byte tagged DDP header of one segment of an RDMA Write or Read Response.
     *
     * @param buffer the memory to write the header into
     * @param offset where the header starts in {@code buffer}
     * @param opcode the opcode
     * @param last the L flag: whether this is the last segment of the message
     * @param stag the Data Sink STag
     * @param to the Data Sink Tagged Offset
     * @return the number of bytes written
     * @throws IllegalArgumentException if the opcode is untagged
     */
    public int taggedHeader(MemorySegment buffer, long offset, RdmapOpcode opcode, boolean last, int stag, long to) {
        if (!opcode.tagged()) {
            throw new IllegalArgumentException(opcode + " is not a tagged message");
        }
        tagged.wrap(buffer, offset).encode(last, features.version(), control(opcode), stag, to);
        return TaggedHeaderFlyweight.HEADER_LENGTH;
    }

    /**
     * Writes the 18-byte untagged DDP header of one segment of a message, with the opcode's QN. The
     * Invalidate STag is sent only for the two Send with Invalidate opcodes and is zero otherwise
     * (RFC 5040 §4.1, RFC 7306 §4.1, and for the draft's requests too, checklist AMB-46).
     *
     * @param buffer the memory to write the header into
     * @param offset where the header starts in {@code buffer}
     * @param opcode the opcode
     * @param last the L flag: whether this is the last segment of the message
     * @param invalidateStag the STag to invalidate (Send with Invalidate only; ignored otherwise)
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @param messageOffset the Message Offset of the segment
     * @return the number of bytes written
     * @throws IllegalArgumentException if the opcode is tagged
     */
    public int untaggedHeader(MemorySegment buffer, long offset, RdmapOpcode opcode, boolean last,
                              int invalidateStag, int msn, int messageOffset) {
        if (opcode.tagged()) {
            throw new IllegalArgumentException(opcode + " is not an untagged message");
        }
        int stag = opcode.carriesInvalidateStag() ? invalidateStag : 0;
        untagged.wrap(buffer, offset).encode(last, features.version(), control(opcode), stag,
                opcode.queueNumber(), msn, messageOffset);
        return UntaggedHeaderFlyweight.HEADER_LENGTH;
    }

    /**
     * Writes a Read Request (QN 1): 46 bytes (wire-format.md §4.3).
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @param sinkStag the Data Sink STag
     * @param sinkTo the Data Sink Tagged Offset
     * @param readSize the RDMA Read Message Size in octets (unsigned 32 bits)
     * @param sourceStag the Data Source STag
     * @param sourceTo the Data Source Tagged Offset
     * @return the number of bytes written
     */
    public int readRequest(MemorySegment buffer, long offset, int msn, int sinkStag, long sinkTo, int readSize,
                           int sourceStag, long sourceTo) {
        int header = single(buffer, offset, RdmapOpcode.READ_REQUEST, msn);
        readRequest.wrap(buffer, offset + header).encode(sinkStag, sinkTo, readSize, sourceStag, sourceTo);
        return READ_REQUEST_LENGTH;
    }

    /**
     * Writes a Terminate (QN 2, MSN 1) for the stream's first error; M, D and R and the copied headers
     * follow {@link TerminateHeaderFlyweight#encode}.
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param error the error to report
     * @param failedDdpHeader the failed segment's DDP header, or {@code null}
     * @param ddpSegmentLength the failed segment's length as the LLP handed it up (RFC 5040 §4.8)
     * @param failedReadRequest the failed Read Request's RDMAP header, or {@code null}
     * @return 22 bytes plus the copied parts
     */
    public int terminate(MemorySegment buffer, long offset, IwarpError error, DdpHeaderFlyweight failedDdpHeader,
                         int ddpSegmentLength, ReadRequestHeaderFlyweight failedReadRequest) {
        int header = single(buffer, offset, RdmapOpcode.TERMINATE, TERMINATE_MSN);
        int body = terminate.wrap(buffer, offset + header)
                .encode(error, failedDdpHeader, ddpSegmentLength, failedReadRequest);
        return header + body;
    }

    /**
     * Writes an Immediate Data message (QN 0, 0x8 or with SE 0x9): 26 bytes (wire-format.md §4.6).
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param solicited whether to set the Solicited Event bit (opcode 0x9 instead of 0x8)
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @param data the 8 octets of Immediate Data, as a big-endian long
     * @return the number of bytes written
     */
    public int immediateData(MemorySegment buffer, long offset, boolean solicited, int msn, long data) {
        RdmapOpcode opcode = solicited ? RdmapOpcode.IMMEDIATE_DATA_SE : RdmapOpcode.IMMEDIATE_DATA;
        int header = single(buffer, offset, opcode, msn);
        immediate.wrap(buffer, offset + header).immediateData(data);
        return IMMEDIATE_DATA_LENGTH;
    }

    /**
     * Writes a masked FetchAdd Atomic Request (QN 1): 70 bytes (wire-format.md §4.7).
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @param requestId the Request Identifier the response will echo
     * @param remoteStag the Remote STag of the target buffer
     * @param remoteTo the Remote Tagged Offset of the 64-bit target
     * @param addData the Add Data
     * @param addMask the Add Mask
     * @return the number of bytes written
     */
    public int fetchAdd(MemorySegment buffer, long offset, int msn, int requestId, int remoteStag, long remoteTo,
                        long addData, long addMask) {
        int header = single(buffer, offset, RdmapOpcode.ATOMIC_REQUEST, msn);
        atomicRequest.wrap(buffer, offset + header).encodeFetchAdd(requestId, remoteStag, remoteTo, addData, addMask);
        return ATOMIC_REQUEST_LENGTH;
    }

    /**
     * Writes a masked CmpSwap Atomic Request (QN 1): 70 bytes.
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @param requestId the Request Identifier the response will echo
     * @param remoteStag the Remote STag of the target buffer
     * @param remoteTo the Remote Tagged Offset of the 64-bit target
     * @param swapData the Swap Data
     * @param swapMask the Swap Mask
     * @param compareData the Compare Data
     * @param compareMask the Compare Mask
     * @return the number of bytes written
     */
    public int compareSwap(MemorySegment buffer, long offset, int msn, int requestId, int remoteStag, long remoteTo,
                           long swapData, long swapMask, long compareData, long compareMask) {
        int header = single(buffer, offset, RdmapOpcode.ATOMIC_REQUEST, msn);
        atomicRequest.wrap(buffer, offset + header).encodeCompareSwap(requestId, remoteStag, remoteTo,
                swapData, swapMask, compareData, compareMask);
        return ATOMIC_REQUEST_LENGTH;
    }

    /**
     * Writes an Atomic Response (QN 3): 30 bytes.
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @param originalRequestId the Request Identifier of the request being answered
     * @param originalValue the value at the target before the operation
     * @return the number of bytes written
     */
    public int atomicResponse(MemorySegment buffer, long offset, int msn, int originalRequestId, long originalValue) {
        int header = single(buffer, offset, RdmapOpcode.ATOMIC_RESPONSE, msn);
        atomicResponse.wrap(buffer, offset + header).encode(originalRequestId, originalValue);
        return ATOMIC_RESPONSE_LENGTH;
    }

    /**
     * Writes an RDMA Flush Request (QN 1): 38 bytes (wire-format.md §4.8).
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @param stag the Data Sink STag
     * @param length the Data Sink Length: octets to make persistent or visible
     * @param to the Data Sink Tagged Offset
     * @param flags the Flush Disposition Flags word
     * @return the number of bytes written
     */
    public int flushRequest(MemorySegment buffer, long offset, int msn, int stag, int length, long to, int flags) {
        int header = single(buffer, offset, RdmapOpcode.FLUSH_REQUEST, msn);
        flushRequest.wrap(buffer, offset + header).encode(stag, length, to, flags);
        return FLUSH_REQUEST_LENGTH;
    }

    /**
     * Writes an RDMA Flush Response (QN 3, no RDMAP header): 18 bytes.
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @return the number of bytes written
     */
    public int flushResponse(MemorySegment buffer, long offset, int msn) {
        return single(buffer, offset, RdmapOpcode.FLUSH_RESPONSE, msn);
    }

    /**
     * Writes an RDMA Verify Request (QN 1): 34 bytes plus the optional hash.
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @param stag the Data Sink STag
     * @param length the Data Sink Length: octets to hash
     * @param to the Data Sink Tagged Offset
     * @param hash the memory holding the hash
     * @param hashOffset the offset of the hash in {@code hash}
     * @param hashLength 0 for a request without an expected hash
     *
     * @return the number of bytes written
     */
    public int verifyRequest(MemorySegment buffer, long offset, int msn, int stag, int length, long to,
                             MemorySegment hash, long hashOffset, int hashLength) {
        int header = single(buffer, offset, RdmapOpcode.VERIFY_REQUEST, msn);
        verifyRequest.wrap(buffer, offset + header, VerifyRequestHeaderFlyweight.FIXED_LENGTH + hashLength)
                .encode(stag, length, to, hash, hashOffset, hashLength);
        return header + VerifyRequestHeaderFlyweight.FIXED_LENGTH + hashLength;
    }

    /**
     * Writes an RDMA Verify Response (QN 3) carrying the computed hash: 18 bytes plus the hash.
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @param hash the memory holding the hash
     * @param hashOffset the offset of the hash in {@code hash}
     * @param hashLength the hash length in octets
     * @return the number of bytes written
     */
    public int verifyResponse(MemorySegment buffer, long offset, int msn, MemorySegment hash, long hashOffset,
                              int hashLength) {
        int header = single(buffer, offset, RdmapOpcode.VERIFY_RESPONSE, msn);
        verifyResponse.wrap(buffer, offset + header, hashLength).encode(hash, hashOffset, hashLength);
        return header + hashLength;
    }

    /**
     * Writes an Atomic Write Request (QN 1, opcode 0x10) with Data Sink Length 8: 42 bytes.
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @param stag the Data Sink STag
     * @param to the Data Sink Tagged Offset
     * @param data the 64-bit value to write at the target
     * @return the number of bytes written
     */
    public int atomicWriteRequest(MemorySegment buffer, long offset, int msn, int stag, long to, long data) {
        int header = single(buffer, offset, RdmapOpcode.ATOMIC_WRITE_REQUEST, msn);
        atomicWrite.wrap(buffer, offset + header).encode(stag, to, data);
        return ATOMIC_WRITE_REQUEST_LENGTH;
    }

    /**
     * Writes an Atomic Write Response (QN 3, opcode 0x11, no RDMAP header): 18 bytes.
     *
     * @param buffer the memory to write the message into
     * @param offset where the message starts in {@code buffer}
     * @param msn the Message Sequence Number of the message on its queue (each queue counts from 1)
     * @return the number of bytes written
     */
    public int atomicWriteResponse(MemorySegment buffer, long offset, int msn) {
        return single(buffer, offset, RdmapOpcode.ATOMIC_WRITE_RESPONSE, msn);
    }

    /** The untagged header of a single-segment message: L=1, MO=0, Invalidate STag 0. */
    private int single(MemorySegment buffer, long offset, RdmapOpcode opcode, int msn) {
        return untaggedHeader(buffer, offset, opcode, true, 0, msn, 0);
    }

    private int control(RdmapOpcode opcode) {
        if (!features.enables(opcode)) {
            throw new IllegalStateException(opcode + " (" + opcode.spec().reference()
                    + ") is not enabled on this stream: " + features);
        }
        return opcode.controlByte(features.version());
    }
}
