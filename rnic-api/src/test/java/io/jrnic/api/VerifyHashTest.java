package io.jrnic.api;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Verify hash a region is registered with (draft-talpey-rdma-commit-01 §2.4, C-VERIFY-002,
 * C-ATTR-004): the algorithms, keys and output lengths it accepts, and every argument it refuses.
 */
class VerifyHashTest {
    @Test
    void defaultIsSha256OfThirtyTwoBytes_C_VERIFY_002() {
        assertThat(VerifyHash.SHA_256.algorithm()).isEqualTo("SHA-256");
        assertThat(VerifyHash.SHA_256.digestAlgorithm()).isEqualTo("SHA-256");
        assertThat(VerifyHash.SHA_256.keyed()).isFalse();
        assertThat(VerifyHash.SHA_256.key()).isNull();
        assertThat(VerifyHash.SHA_256.blockSize()).isZero();
        assertThat(VerifyHash.SHA_256.outputLength()).isEqualTo(32);
        assertThat(VerifyHash.of("sha-256")).isEqualTo(VerifyHash.SHA_256).hasSameHashCodeAs(VerifyHash.SHA_256);
    }

    @Test
    void digestsHaveTheirOutputLength_C_VERIFY_002() {
        assertThat(VerifyHash.of("SHA-512").outputLength()).isEqualTo(64);
        assertThat(VerifyHash.of("SHA3-256").outputLength()).isEqualTo(32);
        assertThat(VerifyHash.of("SHA-384", null).outputLength()).isEqualTo(48);
        assertThat(VerifyHash.of("SHA-512", null, 16).outputLength()).isEqualTo(16);
        assertThat(VerifyHash.of("SHA-512", null, 16).digestLength()).isEqualTo(64);
    }

    @Test
    void hmacKeepsACopyOfItsKeyAndTheDigestBlock_C_ATTR_004() {
        byte[] key = {1, 2, 3};
        VerifyHash h = VerifyHash.of("HmacSHA256", key);
        key[0] = 9;
        assertThat(h.keyed()).isTrue();
        assertThat(h.key()).containsExactly(1, 2, 3);
        h.key()[1] = 7;
        assertThat(h.key()).containsExactly(1, 2, 3);
        assertThat(h.digestAlgorithm()).isEqualTo("SHA-256");
        assertThat(h.blockSize()).isEqualTo(64);
        assertThat(h.outputLength()).isEqualTo(32);
        assertThat(VerifyHash.of("HmacSHA3-256", key).blockSize()).isEqualTo(136);
        assertThat(VerifyHash.of("HmacSHA512", key, 20).outputLength()).isEqualTo(20);
        assertThat(h).isEqualTo(VerifyHash.of("HMACSHA256", new byte[] {1, 2, 3}))
                .isNotEqualTo(VerifyHash.of("HmacSHA256", new byte[] {1, 2, 4}))
                .isNotEqualTo(VerifyHash.of("HmacSHA256", new byte[] {1, 2, 3}, 16));
        assertThat(h.toString()).isEqualTo("VerifyHash[HmacSHA256, keyed, 32 bytes]"); // never the key
    }

    @Test
    void refusesUnknownAlgorithms_C_VERIFY_002() {
        assertThatThrownBy(() -> VerifyHash.of("SHA-999"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown Verify hash algorithm SHA-999: the JDK has no MessageDigest SHA-999");
        assertThatThrownBy(() -> VerifyHash.of("HmacMD9", new byte[1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("unknown Verify hash algorithm HmacMD9: the keyed algorithms are");
        assertThatThrownBy(() -> VerifyHash.of(null)).isInstanceOf(NullPointerException.class)
                .hasMessage("algorithm");
    }

    @Test
    void refusesAKeyForAPlainDigestAndAnHmacWithoutKey_C_ATTR_004() {
        assertThatThrownBy(() -> VerifyHash.of("SHA-256", new byte[16]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Verify hash SHA-256 is not a keyed algorithm and takes no key (use an Hmac algorithm"
                        + " for a keyed hash)");
        assertThatThrownBy(() -> VerifyHash.of("HmacSHA256"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Verify hash HmacSHA256 is keyed and needs a key of at least one byte");
        assertThatThrownBy(() -> VerifyHash.of("HmacSHA256", new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Verify hash HmacSHA256 is keyed and needs a key of at least one byte");
    }

    @Test
    void refusesOutputLengthsOutOfRange_C_VERIFY_002() {
        assertThatThrownBy(() -> VerifyHash.of("SHA-256", null, 33))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Verify hash output length 33 outside 1..32 (the output of SHA-256)");
        assertThatThrownBy(() -> VerifyHash.of("SHA-256", null, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Verify hash output length -1 outside 1..32 (the output of SHA-256)");
        assertThatThrownBy(() -> VerifyHash.of("SHA-512", null, 65))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Verify hash output length 65 outside 1..64 (the output of SHA-512)");
    }
}
