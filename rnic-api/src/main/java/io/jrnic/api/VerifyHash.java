package io.jrnic.api;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;

/**
 * The hash an RNIC computes for an RDMA Verify that targets a region (draft-talpey-rdma-commit-01
 * §2.3, §2.4, §3.1.2; checklist C-VERIFY-002, C-ATTR-004). The draft carries neither the algorithm
 * nor a key on the wire: they are chosen when the region is registered locally
 * ({@link ProtectionDomain#registerMemory(java.lang.foreign.MemorySegment, int, int, AddressType, long, boolean, VerifyHash)},
 * {@link MemoryRegion#reregister(ProtectionDomain, java.lang.foreign.MemorySegment, int, int, AddressType, long, boolean, VerifyHash)},
 * {@link SendWorkRequest#verifyHash(VerifyHash)} on a Fast-Register) and the requester learns
 * them out of band. A window's Verify uses the hash of the region it is bound to.
 *
 * <p>Two kinds:
 * <ul>
 *   <li>a plain digest: a JDK {@link MessageDigest} algorithm name such as {@code SHA-256},
 *       {@code SHA-512} or {@code SHA3-256};</li>
 *   <li>a keyed digest: HMAC (RFC 2104) named as the JDK {@code Mac} names it, one of
 *       {@code HmacSHA1}, {@code HmacSHA224}, {@code HmacSHA256}, {@code HmacSHA384},
 *       {@code HmacSHA512}, {@code HmacSHA512/224}, {@code HmacSHA512/256}, {@code HmacSHA3-224},
 *       {@code HmacSHA3-256}, {@code HmacSHA3-384}, {@code HmacSHA3-512}, with a key of at least
 *       one byte. The RNIC computes it over a cached {@link MessageDigest} so that a Verify
 *       allocates nothing; the bytes equal those of {@code javax.crypto.Mac}.</li>
 * </ul>
 * The output may be truncated to its leftmost {@link #outputLength()} bytes (RFC 2104 §5); it must
 * not exceed {@link SendWorkRequest#MAX_HASH_LENGTH}. An RDMA Verify whose expected hash has another
 * length than the target region's output length fails as a mismatch does (Terminate 0/2/0xFF,
 * checklist AMB-49), and the Verify Response carries exactly {@link #outputLength()} bytes.
 *
 * <p>Every argument is checked by the factories, so a registration with a {@code VerifyHash} never
 * fails because of it.
 *
 * <p>Thread safety: immutable (the key is copied in and out).
 */
public final class VerifyHash {
    private static final String HMAC = "HMAC";
    /** JDK Mac name (upper case) -> digest name and its block size in bytes (RFC 2104 "B"; FIPS 180-4, 202). */
    private static final String[][] HMACS = {
            {"HMACSHA1", "SHA-1", "64"},
            {"HMACSHA224", "SHA-224", "64"},
            {"HMACSHA256", "SHA-256", "64"},
            {"HMACSHA384", "SHA-384", "128"},
            {"HMACSHA512", "SHA-512", "128"},
            {"HMACSHA512/224", "SHA-512/224", "128"},
            {"HMACSHA512/256", "SHA-512/256", "128"},
            {"HMACSHA3-224", "SHA3-224", "144"},
            {"HMACSHA3-256", "SHA3-256", "136"},
            {"HMACSHA3-384", "SHA3-384", "104"},
            {"HMACSHA3-512", "SHA3-512", "72"},
    };

    /** jrnic's default, used whenever a registration names no hash: SHA-256, 32 bytes. */
    public static final VerifyHash SHA_256 = of("SHA-256");

    private final String algorithm;
    private final String digestAlgorithm;
    private final byte[] key;
    private final int blockSize;
    private final int digestLength;
    private final int outputLength;

    private VerifyHash(String algorithm, String digestAlgorithm, byte[] key, int blockSize, int digestLength,
                       int outputLength) {
        this.algorithm = algorithm;
        this.digestAlgorithm = digestAlgorithm;
        this.key = key;
        this.blockSize = blockSize;
        this.digestLength = digestLength;
        this.outputLength = outputLength;
    }

    /**
     * A plain digest with its full output.
     *
     * @param algorithm a JDK {@link MessageDigest} algorithm name
     * @return the hash
     * @throws IllegalArgumentException for an unknown algorithm, an HMAC name (it needs a key) or an
     *                                  output longer than {@link SendWorkRequest#MAX_HASH_LENGTH}
     */
    public static VerifyHash of(String algorithm) {
        return of(algorithm, null, 0);
    }

    /**
     * A plain digest (key null) or an HMAC (key given) with its full output.
     *
     * @param algorithm a JDK {@link MessageDigest} name, or an HMAC name listed in the class comment
     * @param key       the HMAC key (copied), or null for a plain digest
     * @return the hash
     * @throws IllegalArgumentException see {@link #of(String, byte[], int)}
     */
    public static VerifyHash of(String algorithm, byte[] key) {
        return of(algorithm, key, 0);
    }

    /**
     * A plain digest (key null) or an HMAC (key given), truncated to its leftmost
     * {@code outputLength} bytes.
     *
     * @param algorithm    a JDK {@link MessageDigest} name, or an HMAC name listed in the class comment
     * @param key          the HMAC key (copied), or null for a plain digest
     * @param outputLength bytes of the hash, 1 up to the algorithm's output and at most
     *                     {@link SendWorkRequest#MAX_HASH_LENGTH}; 0 for the algorithm's full output
     * @return the hash
     * @throws IllegalArgumentException naming the problem: an unknown algorithm, a key for a plain
     *                                  digest, no key or an empty key for an HMAC, or an output length
     *                                  out of range (also a full output above the maximum)
     * @throws NullPointerException     for a null algorithm
     */
    public static VerifyHash of(String algorithm, byte[] key, int outputLength) {
        Objects.requireNonNull(algorithm, "algorithm");
        String upper = algorithm.toUpperCase(Locale.ROOT);
        String digestName = algorithm;
        int block = 0;
        if (upper.startsWith(HMAC)) {
            for (String[] h : HMACS) {
                if (h[0].equals(upper)) {
                    digestName = h[1];
                    block = Integer.parseInt(h[2]);
                }
            }
            if (block == 0) {
                throw new IllegalArgumentException("unknown Verify hash algorithm " + algorithm
                        + ": the keyed algorithms are HmacSHA1, HmacSHA224, HmacSHA256, HmacSHA384, HmacSHA512,"
                        + " HmacSHA512/224, HmacSHA512/256 and HmacSHA3-224/256/384/512");
            }
            if (key == null || key.length == 0) {
                throw new IllegalArgumentException("Verify hash " + algorithm + " is keyed and needs a key of at"
                        + " least one byte");
            }
        } else if (key != null) {
            throw new IllegalArgumentException("Verify hash " + algorithm + " is not a keyed algorithm and takes no"
                    + " key (use an Hmac algorithm for a keyed hash)");
        }
        int full;
        try {
            full = MessageDigest.getInstance(digestName).getDigestLength();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalArgumentException("unknown Verify hash algorithm " + algorithm
                    + ": the JDK has no MessageDigest " + digestName, e);
        }
        if (full <= 0) {
            throw new IllegalArgumentException("Verify hash " + algorithm + " has no fixed output length");
        }
        int out = outputLength == 0 ? full : outputLength;
        if (outputLength < 0 || out > full) {
            throw new IllegalArgumentException("Verify hash output length " + outputLength + " outside 1.." + full
                    + " (the output of " + algorithm + ")");
        }
        if (out > SendWorkRequest.MAX_HASH_LENGTH) {
            throw new IllegalArgumentException("Verify hash " + algorithm + " output of " + out
                    + " bytes exceeds SendWorkRequest.MAX_HASH_LENGTH (" + SendWorkRequest.MAX_HASH_LENGTH
                    + "); truncate it with an output length");
        }
        return new VerifyHash(algorithm, digestName, key == null ? null : key.clone(), block, full, out);
    }

    /**
     * The algorithm name as given ({@code SHA-512}, {@code HmacSHA256}, ...).
     *
     * @return the name
     */
    public String algorithm() {
        return algorithm;
    }

    /**
     * The JDK {@link MessageDigest} the hash is computed with (for an HMAC: its underlying digest).
     *
     * @return the digest name
     */
    public String digestAlgorithm() {
        return digestAlgorithm;
    }

    /**
     * Whether this is an HMAC with a key.
     *
     * @return true when keyed
     */
    public boolean keyed() {
        return key != null;
    }

    /**
     * A copy of the HMAC key.
     *
     * @return the key, or null for a plain digest
     */
    public byte[] key() {
        return key == null ? null : key.clone();
    }

    /**
     * The HMAC block size of the underlying digest (RFC 2104 "B").
     *
     * @return bytes, 0 for a plain digest
     */
    public int blockSize() {
        return blockSize;
    }

    /**
     * The full output of the underlying digest (RFC 2104 "L"), before any truncation.
     *
     * @return bytes
     */
    public int digestLength() {
        return digestLength;
    }

    /**
     * Bytes of the hash: the length of a Verify Response, and the only expected-hash length a
     * Verify of this region can match.
     *
     * @return 1 to {@link SendWorkRequest#MAX_HASH_LENGTH}
     */
    public int outputLength() {
        return outputLength;
    }

    /**
     * Equal algorithm name (ignoring case), key and output length.
     *
     * @param o the other object
     * @return true when equal
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof VerifyHash h && h.algorithm.equalsIgnoreCase(algorithm) && Arrays.equals(h.key, key)
                && h.outputLength == outputLength;
    }

    /**
     * Consistent with {@link #equals(Object)}.
     *
     * @return the hash code
     */
    @Override
    public int hashCode() {
        return (algorithm.toUpperCase(Locale.ROOT).hashCode() * 31 + Arrays.hashCode(key)) * 31 + outputLength;
    }

    /**
     * The algorithm and output length; never the key.
     *
     * @return the description
     */
    @Override
    public String toString() {
        return "VerifyHash[" + algorithm + (key == null ? "" : ", keyed") + ", " + outputLength + " bytes]";
    }
}
