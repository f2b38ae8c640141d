package io.jrnic.core.engine;

import io.jrnic.api.VerifyHash;
import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Verify responder's hash computation alone (draft-talpey-rdma-commit-01 §3.1.2, C-VERIFY-002):
 * plain digests and RFC 2104 HMACs, every result compared with the JDK's {@code MessageDigest} and
 * {@code javax.crypto.Mac}, for keys around the block size (RFC 2104 §2: only a key longer than the
 * block is hashed first) and for a hash started again before it was finished.
 */
class VerifyHasherTest {
    private static final byte[] TEXT = "bytes of a registered range".getBytes(StandardCharsets.US_ASCII);

    private static byte[] compute(VerifyHasher h, byte[] text) {
        h.start();
        h.update(text, 0, 5); // in chunks, as CommitDraft hands them over
        h.update(text, 5, text.length - 5);
        h.finish();
        return Arrays.copyOf(h.output(), h.hash().outputLength());
    }

    private static byte[] mac(String algorithm, byte[] key, byte[] text) throws Exception {
        Mac mac = Mac.getInstance(algorithm);
        mac.init(new SecretKeySpec(key, algorithm));
        return mac.doFinal(text);
    }

    @Test
    void hmacKeysShorterEqualToAndLongerThanTheBlockMatchTheJdk_RFC_2104_2() throws Exception {
        for (String algorithm : new String[] {"HmacSHA256", "HmacSHA384"}) {
            int block = VerifyHash.of(algorithm, new byte[] {1}).blockSize(); // 64 and 128 bytes
            for (int length : new int[] {1, block - 1, block, block + 1, 2 * block}) {
                byte[] key = new byte[length];
                for (int i = 0; i < length; i++) {
                    key[i] = (byte) (i * 7 + length);
                }
                VerifyHasher h = new VerifyHasher(VerifyHash.of(algorithm, key));
                assertThat(compute(h, TEXT)).as("%s, key of %d bytes (block %d)", algorithm, length, block)
                        .isEqualTo(mac(algorithm, key, TEXT));
                assertThat(compute(h, TEXT)).as("the same hasher again").isEqualTo(mac(algorithm, key, TEXT));
            }
        }
    }

    @Test
    void aPlainDigestIsTheJdksDigest() throws Exception {
        VerifyHasher h = new VerifyHasher(VerifyHash.SHA_256);
        assertThat(compute(h, TEXT)).isEqualTo(MessageDigest.getInstance("SHA-256").digest(TEXT));
        assertThat(h.outputSegment().byteSize()).isEqualTo(32);
    }

    @Test
    void startDiscardsAHashThatWasNeverFinished() throws Exception {
        for (VerifyHash hash : new VerifyHash[] {VerifyHash.SHA_256, VerifyHash.of("HmacSHA256", new byte[] {9})}) {
            VerifyHasher h = new VerifyHasher(hash);
            h.start();
            h.update(new byte[100], 0, 100); // a Verify abandoned half way (its memory went away)
            byte[] expected = hash.keyed() ? mac("HmacSHA256", new byte[] {9}, TEXT)
                    : MessageDigest.getInstance("SHA-256").digest(TEXT);
            assertThat(compute(h, TEXT)).as("%s", hash).isEqualTo(expected);
        }
    }
}
