package dev.knotless.runner.run.transfer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ArtifactsTest {

    @Test
    void aWorkflowsNameBecomesOnePlainDirectory() {
        assertThat(Artifacts.directory("build (jdk=21, db=postgres)")).isEqualTo("/artifacts/build-jdk=21,db=postgres");
        assertThat(Artifacts.directory("build")).isEqualTo("/artifacts/build");
        assertThat(Artifacts.directory("a/b c")).isEqualTo("/artifacts/a-b-c");
        assertThat(Artifacts.directory("..")).isEqualTo("/artifacts/_");
        assertThat(Artifacts.directory("(  )")).isEqualTo("/artifacts/_");
    }
}
