package io.jrnic.core.engine;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The reference reading of {@link EngineReceiveFuzzTest}'s inputs (issue 13): walks the ULPDUs a
 * peer sent, in order, over a model of the fuzz world (its regions, window, three receive buffers,
 * one outstanding RDMA Read, IRD 4, RFC 5040 feature set), and names what the engine must do with
 * the first one that is not accepted: the Terminate's Layer / Error Type / Error Code that the
 * checklist gives for that fault, or no Terminate at all (a Terminate arrived, valid or not:
 * R-TERM-048). Written from the specs, not from the engine's code: RFC 5041 §7.1 checks 1-5 and
 * §7.2 codes for DDP, RFC 5040 §7.2 for RDMAP, checklist R-ERR-020..034, R-READ-030/044.
 *
 * <p>Where the specs leave the choice open, the verdict is the set of codes they allow:
 * <ul>
 *   <li>a tagged segment whose TO (inside the buffer) + length wraps: RFC 5041 §7.1 check 4
 *       (bounds, 1/1/0x01) or check 5 (TO wrap, 1/1/0x03) may be the one that fails first; a Read
 *       Request whose source TO + size wraps, wherever TO is: RFC 5040 §7.2 (4c)/(4d) 0/1/0x01 or
 *       (4e) 0/1/0x04 (checklist AMB-05 checks the wrap "separately");</li>
 *   <li>a Read Request whose source lacks Remote Read: §7.2 lists no rights check (checklist AMB-10,
 *       R-ERR-031), so 0/1/0x02 may come before or after the bounds checks;</li>
 *   <li>a tagged segment with payload that is neither an RDMA Write nor a Read Response the QP
 *       awaits (or has a bad RDMAP version): its STag names no placement buffer, so RFC 5041 §7.1's
 *       checks have nothing to check against; RDMAP's 0/2/0x06 (0/2/0x05) is expected (R-ERR-021,
 *       R-ERR-022), and when its TO + length would wrap 2^64 (or TO is 2^64 - 1) also DDP's
 *       1/1/0x03 and 1/1/0x01.</li>
 * </ul>
 */
final class ReceiveClassifier {
    /** A code as the Terminate's control field has it: Layer (4 bits), Error Type (4), Error Code (8). */
    static int code(int layer, int type, int code) {
        return layer << 12 | type << 8 | code;
    }

    // RFC 5041 §7.2 (Layer 1) and RFC 5040 §4.8 Figure 9 (Layer 0), checklist R-ERR-002..015
    static final int DDP_CATASTROPHIC = code(1, 0, 0x00);
    static final int DDP_INVALID_STAG = code(1, 1, 0x00);
    static final int DDP_BASE_BOUNDS = code(1, 1, 0x01);
    static final int DDP_NOT_ASSOCIATED = code(1, 1, 0x02);
    static final int DDP_TO_WRAP = code(1, 1, 0x03);
    static final int DDP_TAGGED_VERSION = code(1, 1, 0x04);
    static final int DDP_INVALID_QN = code(1, 2, 0x01);
    static final int DDP_NO_BUFFER = code(1, 2, 0x02);
    static final int DDP_MSN_RANGE = code(1, 2, 0x03);
    static final int DDP_INVALID_MO = code(1, 2, 0x04);
    static final int DDP_TOO_LONG = code(1, 2, 0x05);
    static final int DDP_UNTAGGED_VERSION = code(1, 2, 0x06);
    static final int RDMAP_INVALID_STAG = code(0, 1, 0x00);
    static final int RDMAP_BASE_BOUNDS = code(0, 1, 0x01);
    static final int RDMAP_ACCESS = code(0, 1, 0x02);
    static final int RDMAP_NOT_ASSOCIATED = code(0, 1, 0x03);
    static final int RDMAP_TO_WRAP = code(0, 1, 0x04);
    static final int RDMAP_VERSION = code(0, 2, 0x05);
    static final int RDMAP_OPCODE = code(0, 2, 0x06);
    static final int RDMAP_LOCALIZED = code(0, 2, 0x07);
    static final int RDMAP_UNSPECIFIED = code(0, 2, 0xFF);

    /** What the engine must do with an input. */
    enum Kind {
        /** Every ULPDU is accepted: no Terminate is sent. */
        ACCEPTED,
        /** A Terminate arrived (valid or not) before any fault: none is sent back (R-TERM-048). */
        PEER_TERMINATE,
        /** The ULPDU {@code index} fails: one Terminate with one of {@code codes}. */
        REJECTED
    }

    /** The verdict: kind, the failing ULPDU, the codes allowed, and why. */
    record Verdict(Kind kind, int index, Set<Integer> codes, String reason) {
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder(kind + " at ULPDU " + index + " (" + reason + ")");
            for (int c : codes) {
                b.append(String.format(" %d/%d/0x%02x", c >>> 12, c >>> 8 & 0xF, c & 0xFF));
            }
            return b.toString();
        }
    }

    /** One STag of the model: what RFC 5042 §5 and the region's rights make of it. */
    record Stag(int stag, long base, long length, boolean associated, boolean remoteWrite, boolean remoteRead) {
    }

    private static final int OP_WRITE = 0;
    private static final int OP_READ_REQUEST = 1;
    private static final int OP_READ_RESPONSE = 2;
    private static final int OP_TERMINATE = 7;
    /** RFC 5040 §4.4: a Read Request's RDMA header. */
    private static final int READ_REQUEST_LENGTH = 28;
    private static final int IRD = 4;

    private final List<Stag> stags;
    private final int sinkStag;
    private final long sinkTo;
    private final int readLength;
    private final int receiveLength;
    private int receivesLeft;

    // RFC 5041 §5: per untagged queue 0-2, the expected MSN and the message in progress
    private final int[] msn = {1, 1, 1};
    private final boolean[] inProgress = new boolean[3];
    private final long[] capacity = new long[3];
    private final long[] accepted = new long[3];
    private boolean readOutstanding = true;
    private long readReceived;
    private int ird;

    ReceiveClassifier(List<Stag> stags, int sinkStag, long sinkTo, int readLength, int receives, int receiveLength) {
        this.stags = stags;
        this.sinkStag = sinkStag;
        this.sinkTo = sinkTo;
        this.readLength = readLength;
        this.receivesLeft = receives;
        this.receiveLength = receiveLength;
    }

    /** Classifies the ULPDUs (as the peer sent them, after the fuzz test's patch). */
    Verdict classify(List<byte[]> ulpdus) {
        for (int i = 0; i < ulpdus.size(); i++) {
            Verdict v = segment(i, ulpdus.get(i));
            if (v != null) {
                return v;
            }
        }
        return new Verdict(Kind.ACCEPTED, -1, Set.of(), "every ULPDU accepted");
    }

    private static Verdict reject(int i, String reason, int... codes) {
        Set<Integer> s = new TreeSet<>();
        for (int c : codes) {
            s.add(c);
        }
        return new Verdict(Kind.REJECTED, i, s, reason);
    }

    /** One ULPDU: null when accepted (the model advanced), else the verdict. */
    private Verdict segment(int i, byte[] u) {
        int n = u.length;
        boolean tagged = n > 0 && (u[0] & 0x80) != 0;
        int headerLength = tagged ? 14 : 18;
        if (n < headerLength) {
            // MPA's minimum ULPDU (the smallest DDP header, 14) or a cut untagged header: Verbs §8.3.3
            // "segment size invalid" 0x1000 = DDP 1/0/0x00, and no field can be trusted (not even as a
            // Terminate)
            return reject(i, "ULPDU of " + n + " bytes, shorter than its DDP header", DDP_CATASTROPHIC);
        }
        ByteBuffer b = ByteBuffer.wrap(u);
        boolean last = (u[0] & 0x40) != 0;
        int dv = u[0] & 0x03;
        int rv = (u[1] & 0xFF) >>> 6;
        int op = u[1] & 0x0F;
        int payload = n - headerLength;
        int qn = tagged ? -1 : b.getInt(6);
        // RFC 5040 §5.4, R-TERM-024/048: a segment meant as a Terminate is never answered with one,
        // whatever else is wrong with it
        if (op == OP_TERMINATE || qn == 2) {
            return new Verdict(Kind.PEER_TERMINATE, i, Set.of(), "a Terminate (opcode 7 or QN 2)");
        }
        return tagged ? tagged(i, b, last, dv, rv, op, payload) : untagged(i, b, last, dv, rv, op, qn, payload);
    }

    private Verdict tagged(int i, ByteBuffer b, boolean last, int dv, int rv, int op, int payload) {
        if (dv != 1) {
            return reject(i, "tagged DDP version " + dv, DDP_TAGGED_VERSION);           // RFC 5041 §4.1
        }
        int stag = b.getInt(2);
        long to = b.getLong(6);
        boolean placeable = rv == 1 && (op == OP_WRITE || op == OP_READ_RESPONSE && readOutstanding);
        if (!placeable) {
            // R-ERR-021/022: RDMAP names it; see the class comment for the DDP codes also allowed
            int rdmap = rv != 1 ? RDMAP_VERSION : RDMAP_OPCODE;
            if (payload > 0 && (to == -1L || Long.compareUnsigned(to + payload, to) < 0)) {
                return reject(i, "tagged opcode " + op + " RV " + rv + " not placeable, TO wraps", rdmap,
                        DDP_TO_WRAP, DDP_BASE_BOUNDS);
            }
            return reject(i, "tagged opcode " + op + " RV " + rv + " not placeable", rdmap);
        }
        if (payload > 0) {
            // RFC 5041 §5.2: the STag and TO of a zero-length segment are not checked
            Stag s = find(stag);
            if (s == null) {
                return reject(i, "invalid STag", DDP_INVALID_STAG);                     // §7.1 check 1
            }
            if (!s.associated) {
                return reject(i, "STag of another PD", DDP_NOT_ASSOCIATED);             // check 1
            }
            if (!s.remoteWrite) {
                return reject(i, "no Remote Write", DDP_INVALID_STAG);                  // check 2, R-ERR-032
            }
            Verdict v = bounds(i, to, payload, s.base, s.length, DDP_BASE_BOUNDS, DDP_TO_WRAP);
            if (v != null) {
                return v;
            }
        }
        if (op == OP_READ_RESPONSE) {
            // RFC 5040 §5.2.2, R-READ-030/031: the sink the Read named, in order, no more, no less
            if (payload > 0) {
                if (stag != sinkStag) {
                    return reject(i, "Read Response to another STag", DDP_INVALID_STAG);
                }
                long at = to - sinkTo;
                if (Long.compareUnsigned(at, readLength) >= 0 || payload > readLength - at || at != readReceived) {
                    return reject(i, "Read Response outside the sink or out of order", DDP_BASE_BOUNDS);
                }
            }
            if (last && readReceived + payload != readLength) {
                return reject(i, "Read Response shorter than the Read", DDP_BASE_BOUNDS);
            }
            readReceived += payload;
            if (last) {
                readOutstanding = false;
            }
        }
        return null;
    }

    private Verdict untagged(int i, ByteBuffer b, boolean last, int dv, int rv, int op, int qn, int payload) {
        if (dv != 1) {
            return reject(i, "untagged DDP version " + dv, DDP_UNTAGGED_VERSION);      // RFC 5041 §4.1
        }
        if (qn < 0 || qn > 2) {
            return reject(i, "QN " + Integer.toUnsignedString(qn), DDP_INVALID_QN);    // §7.1 check 1
        }
        int m = b.getInt(10);
        long mo = Integer.toUnsignedLong(b.getInt(14));
        if (m != msn[qn]) {
            return reject(i, "MSN " + Integer.toUnsignedString(m) + " on QN " + qn, DDP_MSN_RANGE); // check 5
        }
        boolean send = op >= 3 && op <= 6 && rv == 1;
        if (!inProgress[qn]) {
            long cap = 0xFFFF_FFFFL; // RFC 5041 §5.2: any message is shorter than 2^32
            if (qn == 0 && send) {
                // RFC 5040 §5.3: a Send takes the next receive buffer
                if (receivesLeft == 0) {
                    return reject(i, "no receive buffer", DDP_NO_BUFFER);              // check 2
                }
                receivesLeft--;
                cap = receiveLength;
            } else if (qn == 1 && op == OP_READ_REQUEST) {
                // R-READ-026: the IRRQ slot takes the 28-byte header; no other opcode has a buffer on
                // QN 1 of an RFC 5040 stream (Atomic Requests are RFC 7306's, R-HDR-027)
                cap = READ_REQUEST_LENGTH;
            }
            inProgress[qn] = true;
            capacity[qn] = cap;
            accepted[qn] = 0;
        }
        if (mo != accepted[qn]) {
            return reject(i, "MO " + mo + " after " + accepted[qn], DDP_INVALID_MO);       // check 3
        }
        if (mo + payload > capacity[qn]) {
            if (qn == 1 && rv != 1) {
                // the IRRQ slot (R-READ-026) is a Read Request's whatever its RV: DDP's check 4 or
                // RDMAP's version check (RFC 5040 §7.2 (1) before (3)) may name it
                return reject(i, "Read Request of RV " + rv + " longer than its slot", DDP_TOO_LONG, RDMAP_VERSION);
            }
            return reject(i, "message longer than its buffer", DDP_TOO_LONG);           // check 4
        }
        // RFC 5040 §7.2 (2)(3): version, then opcode for this queue
        if (rv != 1) {
            return reject(i, "RDMAP version " + rv, RDMAP_VERSION);
        }
        boolean opcodeFits = qn == 0 ? op >= 3 && op <= 6 : op == OP_READ_REQUEST;
        if (!opcodeFits) {
            return reject(i, "opcode " + op + " on QN " + qn, RDMAP_OPCODE);
        }
        if (op == OP_READ_REQUEST && !last) {
            return reject(i, "Read Request without L", RDMAP_UNSPECIFIED);             // single segment
        }
        accepted[qn] = mo + payload;
        if (last) {
            msn[qn]++;
            inProgress[qn] = false;
        }
        return op == OP_READ_REQUEST ? readRequest(i, b, payload) : null;
    }

    /** RFC 5040 §5.2.1, §7.2 (4): a delivered Read Request. */
    private Verdict readRequest(int i, ByteBuffer b, int length) {
        if (length != READ_REQUEST_LENGTH) {
            return reject(i, "Read Request of " + length + " bytes", RDMAP_UNSPECIFIED);   // AMB-30
        }
        if (ird >= IRD) {
            return reject(i, "Read Request beyond IRD", RDMAP_LOCALIZED);                 // R-READ-044, AMB-11
        }
        long size = Integer.toUnsignedLong(b.getInt(18 + 12));
        if (size != 0) {
            Stag s = find(b.getInt(18 + 16));
            long to = b.getLong(18 + 20);
            if (s == null) {
                return reject(i, "Read source STag invalid", RDMAP_INVALID_STAG);        // (4a)
            }
            if (!s.associated) {
                return reject(i, "Read source of another PD", RDMAP_NOT_ASSOCIATED);     // (4b)
            }
            Verdict v = bounds(i, to, size, s.base, s.length, RDMAP_BASE_BOUNDS, RDMAP_TO_WRAP);
            if (Long.compareUnsigned(to + size, to) < 0) {
                // (4c)/(4d) fail too, and the checklist fixes no order between them and (4e) (AMB-05)
                v = reject(i, "Read source TO + size wraps", RDMAP_BASE_BOUNDS, RDMAP_TO_WRAP);
            }
            if (!s.remoteRead) {
                // AMB-10, R-ERR-031: the rights check has no place in §7.2's order
                Set<Integer> codes = new TreeSet<>(v == null ? Set.of() : v.codes);
                codes.add(RDMAP_ACCESS);
                return new Verdict(Kind.REJECTED, i, codes, "Read source without Remote Read");
            }
            if (v != null) {
                return v;
            }
        }
        ird++; // answered by TX after the input: every ULPDU of an input arrives in one read
        return null;
    }

    /**
     * RFC 5041 §7.1 checks 3-5 (RFC 5040 §7.2 (4c)-(4e)) for {@code length} bytes at {@code to} of a
     * buffer: TO below the base or past the end is bounds; a sum that wraps is bounds or wrap.
     */
    private static Verdict bounds(int i, long to, long length, long base, long size, int boundsCode, int wrapCode) {
        long at = to - base;
        if (Long.compareUnsigned(to, base) < 0 || Long.compareUnsigned(at, size) >= 0) {
            return reject(i, "TO outside the buffer", boundsCode);
        }
        if (Long.compareUnsigned(to + length, to) < 0) {
            return reject(i, "TO + length wraps", boundsCode, wrapCode);
        }
        if (Long.compareUnsigned(length, size - at) > 0) {
            return reject(i, "last octet outside the buffer", boundsCode);
        }
        return null;
    }

    private Stag find(int stag) {
        for (Stag s : stags) {
            if (s.stag == stag) {
                return s;
            }
        }
        return null;
    }
}
