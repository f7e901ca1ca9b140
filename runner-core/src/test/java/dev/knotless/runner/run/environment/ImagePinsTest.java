package dev.knotless.runner.run.environment;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * What is left as named, and why. Pinning itself is proven against a real registry by the GitHub
 * workflow scenario on every executor and by node-agent's RegistryAuthIT.
 */
class ImagePinsTest {

    final ImagePins pins = ImagePins.fromRegistries();

    @Test
    void anImageAlreadyPinnedIsKeptWithNothingToSay() {
        String pinned = "127.0.0.1:9/app@sha256:" + "a".repeat(64);
        assertThat(pins.pin(pinned)).isEqualTo(new ImagePins.Kept(pinned, null));
    }

    @Test
    void aNameThatSpellsOutNoRegistryIsNotAskedOfDockerHub() {
        for (String image : new String[] {"debian:12", "local/knotless-test:1", "library/busybox"}) {
            ImagePins.Pin pin = pins.pin(image);
            assertThat(pin.reference()).isEqualTo(image);
            assertThat(((ImagePins.Unasked) pin).why()).startsWith("its name spells out no registry");
        }
    }

    @Test
    void aRegistryThatDoesNotAnswerLeavesTheImageAsNamedWithItsWords() {
        // port 9 (discard) on loopback: nothing listens, the connection is refused at once
        ImagePins.Pin pin = pins.pin("127.0.0.1:9/none:0");
        assertThat(pin.reference()).isEqualTo("127.0.0.1:9/none:0");
        assertThat(((ImagePins.Kept) pin).why()).startsWith("cannot reach registry 127.0.0.1:9");
    }

    @Test
    void textNoRegistryTakesIsKeptForTheExecutorToRefuse() {
        ImagePins.Pin pin = pins.pin("Not An Image");
        assertThat(pin.reference()).isEqualTo("Not An Image");
        assertThat(((ImagePins.Kept) pin).why()).startsWith("not a name a registry takes");
    }

    @Test
    void noneAsksNothingAndSaysNothing() {
        assertThat(ImagePins.NONE.asks()).isFalse();
        assertThat(ImagePins.NONE.pin("127.0.0.1:9/none:0"))
                .isEqualTo(new ImagePins.Unasked("127.0.0.1:9/none:0", "this runner pins no image"));
    }

    @Test
    void thePinnedNameIsTheNameAsWrittenWithoutItsTag() {
        assertThat(ImagePins.withoutTag("127.0.0.1:5000/team/app:1.2")).isEqualTo("127.0.0.1:5000/team/app");
        assertThat(ImagePins.withoutTag("127.0.0.1:5000/team/app")).isEqualTo("127.0.0.1:5000/team/app");
    }
}
