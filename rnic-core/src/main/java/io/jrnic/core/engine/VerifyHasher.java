package io.jrnic.core.engine;

import io.jrnic.api.VerifyHash;

import java.lang.foreign.MemorySegment;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The reusable computation of one {@link VerifyHash} for the RDMA Verify responder
 * (draft-talpey-rdma-commit-01 §3.1.2, C-VERIFY-002): a cached {@link MessageDigest}, and for a keyed
 * hash the HMAC of RFC 2104 §2 built on it,
 * <pre>
 *   H((K' ^ opad) || H((K' ^ ipad) || text))     K' = K, or H(K) when K is longer than the block B,
 *                                                 zero-padded to B; ipad = 0x36.., opad = 0x5c..
 * </pre>
 * with both padded key blocks computed once. {@code javax.crypto.Mac} is not used because its
 * {@code doFinal} allocates the result on every call; this class allocates nothing per hash.
 *
 * <p>Usage: {@link #start()}, {@link #update} for every chunk, {@link #finish()}; the hash is then
 * the first {@link VerifyHash#outputLength()} bytes of {@link #output()} (RFC 2104 §5 truncation
 * keeps the leftmost bytes).
 *
 * <p>Thread safety: not thread safe; one per QP engine, confined to its event loop.
 */
final class VerifyHasher {
    private static final byte IPAD = 0x36;
    private static final byte OPAD = 0x5c;

    private final VerifyHash hash;
    private final MessageDigest digest;
    /** K' ^ ipad and K' ^ opad (RFC 2104 steps 2 and 5), null for a plain digest. */
    private final byte[] innerPad;
    private final byte[] outerPad;
    /** The full digest: the inner hash of an HMAC, then the result. */
    private final byte[] output;
    private final MemorySegment outputSegment;

    /**
     * Prepares the computation of {@code hash}.
     *
     * @param hash the region's Verify hash (its algorithm was checked when it was built)
     */
    VerifyHasher(VerifyHash hash) {
        this.hash = hash;
        try {
            this.digest = MessageDigest.getInstance(hash.digestAlgorithm());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lost " + hash.digestAlgorithm(), e);
        }
        this.output = new byte[hash.digestLength()];
        this.outputSegment = MemorySegment.ofArray(output);
        if (hash.keyed()) {
            byte[] k = hash.key();
            if (k.length > hash.blockSize()) {
                k = digest.digest(k); // RFC 2104 §2: a long key is hashed first
            }
            innerPad = new byte[hash.blockSize()];
            outerPad = new byte[hash.blockSize()];
            for (int i = 0; i < innerPad.length; i++) {
                byte b = i < k.length ? k[i] : 0;
                innerPad[i] = (byte) (b ^ IPAD);
                outerPad[i] = (byte) (b ^ OPAD);
            }
        } else {
            innerPad = null;
            outerPad = null;
        }
    }

    /**
     * The hash this computes.
     *
     * @return the Verify hash
     */
    VerifyHash hash() {
        return hash;
    }

    /** Starts a new hash (an HMAC begins with the inner padded key). */
    void start() {
        digest.reset();
        if (innerPad != null) {
            digest.update(innerPad);
        }
    }

    /**
     * Hashes bytes of the range.
     *
     * @param bytes  the chunk
     * @param offset its first byte
     * @param length its length
     */
    void update(byte[] bytes, int offset, int length) {
        digest.update(bytes, offset, length);
    }

    /** Ends the hash into {@link #output()}. */
    void finish() {
        try {
            digest.digest(output, 0, output.length);
            if (outerPad != null) {
                digest.update(outerPad);
                digest.update(output, 0, output.length);
                digest.digest(output, 0, output.length);
            }
        } catch (DigestException e) {
            throw new IllegalStateException(hash + " digest of " + output.length + " bytes failed", e);
        }
    }

    /**
     * The full digest of the last {@link #finish()}; the hash is its first
     * {@link VerifyHash#outputLength()} bytes.
     *
     * @return the bytes (reused)
     */
    byte[] output() {
        return output;
    }

    /**
     * {@link #output()} as a heap segment, for the Verify Response encoder.
     *
     * @return the segment (reused)
     */
    MemorySegment outputSegment() {
        return outputSegment;
    }
}
