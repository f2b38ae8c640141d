package io.jrnic.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import io.jrnic.ddp.TaggedBufferDescriptor.Status;
import org.junit.jupiter.api.Test;

/** The reusable STag lookup result. */
class TaggedBufferDescriptorTest {

    private final TaggedBufferDescriptor descriptor = new TaggedBufferDescriptor();

    @Test
    void startsInvalid() {
        assertThat(descriptor.status()).isEqualTo(Status.INVALID);
        assertThat(descriptor.placementAllowed()).isFalse();
        assertThat(descriptor.attachment()).isNull();
        assertThat(descriptor.toString()).isEqualTo("TaggedBuffer[INVALID]");
    }

    @Test
    void holdsAValidRegion() {
        Object region = new Object();

        assertThat(descriptor.valid(0xFFFF_0000_0000_0000L, -1L, true, region)).isSameAs(descriptor);

        assertThat(descriptor.status()).isEqualTo(Status.VALID);
        assertThat(descriptor.baseTaggedOffset()).isEqualTo(0xFFFF_0000_0000_0000L);
        assertThat(descriptor.length()).isEqualTo(-1L);
        assertThat(descriptor.placementAllowed()).isTrue();
        assertThat(descriptor.attachment()).isSameAs(region);
        assertThat(descriptor.toString())
                .isEqualTo("TaggedBuffer[VALID base=0xffff000000000000 length=18446744073709551615 placement=true]");
    }

    @Test
    void forgetsTheRegionWhenRefilled() {
        descriptor.valid(1, 2, true, new Object());

        assertThat(descriptor.notAssociated().status()).isEqualTo(Status.NOT_ASSOCIATED);
        assertThat(descriptor.attachment()).isNull();
        assertThat(descriptor.length()).isZero();

        descriptor.valid(1, 2, true, new Object());
        assertThat(descriptor.invalid().status()).isEqualTo(Status.INVALID);
        assertThat(descriptor.attachment()).isNull();
        assertThat(descriptor.placementAllowed()).isFalse();
    }
}
