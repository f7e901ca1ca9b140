package dev.knotless.node.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.registry.ImageReference;
import org.junit.jupiter.api.Test;

/** What the node protocol carries as an image is what the agent's registry client reads. */
class ProtocolImageNamesTest {

    static final String HEX = "a".repeat(64);

    @Test
    void everyImageTheProtocolAcceptsParses() {
        for (String name : new String[] {"busybox", "team/app", "a.b-c.io:5000/x/y/z", "localhost/app",
                "127.0.0.1:5000/knotless-it/a__b", "my-registry/app", "docker.io/library/busybox"}) {
            String image = dev.knotless.node.protocol.Names.image(name + "@sha256:" + HEX);
            assertThat(ImageReference.parse(image).digest().hex()).isEqualTo(HEX);
        }
    }
}
