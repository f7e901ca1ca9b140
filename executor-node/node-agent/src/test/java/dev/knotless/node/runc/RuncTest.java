package dev.knotless.node.runc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What needs no runc: the missing binary, missing bundles, and runc's error lines made one line. */
class RuncTest {

    @TempDir
    Path dir;

    @Test
    void aMissingBinaryIsOneLine() throws Exception {
        Runc runc = new Runc("/no/such/runc", dir.resolve("state"), Duration.ofSeconds(5));
        assertThat(runc.root()).isEqualTo(dir.resolve("state/runc")).isDirectory();
        assertThatThrownBy(runc::list)
                .isInstanceOf(RuncException.class)
                .hasMessageStartingWith("cannot run /no/such/runc: ")
                .hasMessageNotContaining("\n");
        assertThat(runc.state("absent")).isEmpty(); // no state directory: runc is not even asked
    }

    @Test
    void createWantsAGeneratedConfig() throws Exception {
        Runc runc = new Runc("/no/such/runc", dir.resolve("state"), Duration.ofSeconds(5));
        Path bundle = Files.createDirectories(dir.resolve("bundle"));
        assertThatThrownBy(() -> runc.create("a", bundle)).hasMessage("create a: no config.json in " + bundle);
        Files.writeString(bundle.resolve("config.json"), "{\"ociVersion\":\"1.0.2\"}");
        assertThatThrownBy(() -> runc.create("a", bundle))
                .hasMessage("create a: " + bundle.resolve("config.json") + " has no dev.knotless.config-digest annotation");
    }

    @Test
    void runcsLogLinesLoseTheirDecoration() {
        assertThat(Runc.lastError("time=\"2026-11-30T04:00:00Z\" level=error msg=\"runc create failed: "
                + "unable to start container process: exec: \\\"x\\\": not found\"\n"))
                .isEqualTo("runc create failed: unable to start container process: exec: \"x\": not found");
        assertThat(Runc.lastError("first\ncontainer does not exist\n\n")).isEqualTo("container does not exist");
        assertThat(Runc.lastError("")).isEqualTo("runc gave no reason");
    }
}
