package io.jrnic.core;

import java.nio.ByteBuffer;

/**
 * Builders of raw DDP/RDMAP ULPDUs for tests that act as the peer (RFC 5041 §4, RFC 5040 §4);
 * public for the raw-socket tests of the transport package.
 */
public final class Wire {
    public static final int WRITE = 0x0;
    public static final int READ_REQUEST = 0x1;
    public static final int READ_RESPONSE = 0x2;
    public static final int SEND = 0x3;
    public static final int SEND_INVALIDATE = 0x4;
    public static final int SEND_SE = 0x5;
    public static final int TERMINATE = 0x7;

    private Wire() {
    }

    /** Tagged segment: control (T=1, L, DV=1), RDMAP control (RV=1, opcode), STag, TO, payload. */
    public static byte[] tagged(int opcode, boolean last, int stag, long to, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(14 + payload.length);
        b.put((byte) (0x80 | (last ? 0x40 : 0) | 0x01)).put((byte) (0x40 | opcode)).putInt(stag).putLong(to).put(payload);
        return b.array();
    }

    /** Untagged segment: control (T=0, L, DV=1), RDMAP control, Inv STag, QN, MSN, MO, payload. */
    public static byte[] untagged(int opcode, boolean last, int invalidateStag, int qn, int msn, int mo, byte[] payload) {
        ByteBuffer b = ByteBuffer.allocate(18 + payload.length);
        b.put((byte) ((last ? 0x40 : 0) | 0x01)).put((byte) (0x40 | opcode)).putInt(invalidateStag).putInt(qn)
                .putInt(msn).putInt(mo).put(payload);
        return b.array();
    }

    public static byte[] send(int msn, byte[] payload) {
        return untagged(SEND, true, 0, 0, msn, 0, payload);
    }

    public static byte[] readRequest(int msn, int sinkStag, long sinkTo, int size, int sourceStag, long sourceTo) {
        ByteBuffer rr = ByteBuffer.allocate(28);
        rr.putInt(sinkStag).putLong(sinkTo).putInt(size).putInt(sourceStag).putLong(sourceTo);
        return untagged(READ_REQUEST, true, 0, 1, msn, 0, rr.array());
    }

    /** The untagged header of our Terminate: QN 2, MSN 1, MO 0, L=1 (RFC 5040 §5.4). */
    public static final String TERMINATE_HEADER = "41 47 00000000 00000002 00000001 00000000";

    public static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        for (byte[] p : parts) {
            b.put(p);
        }
        return b.array();
    }
}
