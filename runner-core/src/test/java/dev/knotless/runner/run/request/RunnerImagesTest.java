package dev.knotless.runner.run.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.plan.Workflow;
import dev.knotless.plan.github.GithubDialect;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The operator's table of machine labels to images, over the default image. */
class RunnerImagesTest {

    private static Workflow asking(String runsOn) throws Exception {
        return new GithubDialect().parseExpanded(".github/workflows/r.yml", """
                on: push
                jobs:
                  j:
                    runs-on: %s
                    steps: [{run: 'true'}]
                """.formatted(runsOn)).getFirst();
    }

    @Test
    void theFirstOfAWorkflowsLabelsTheTableNamesDecidesElseTheDefault() throws Exception {
        RunnerImages images = RunnerImages.parse("debian:12", List.of("ubuntu-latest=reg/ubuntu:24.04", "gpu=reg/cuda:12"));
        assertThat(images.imageFor(asking("ubuntu-latest"))).isEqualTo("reg/ubuntu:24.04");
        assertThat(images.imageFor(asking("[self-hosted, gpu, ubuntu-latest]"))).isEqualTo("reg/cuda:12");
        assertThat(images.imageFor(asking("{group: big, labels: [ubuntu-latest]}"))).isEqualTo("reg/ubuntu:24.04");
        assertThat(images.imageFor(asking("macos-latest"))).isEqualTo("debian:12");
        assertThat(asking("[self-hosted, gpu]").labels()).containsExactly("self-hosted", "gpu");
    }

    @Test
    void anEntryThatIsNotLabelEqualsImageOrALabelGivenTwiceIsRefused() {
        assertThatThrownBy(() -> RunnerImages.parse("d", List.of("ubuntu-latest"))).hasMessage(
                "--runs-on 'ubuntu-latest': expected LABEL=IMAGE, such as ubuntu-latest=registry.example/ci/ubuntu:24.04");
        assertThatThrownBy(() -> RunnerImages.parse("d", List.of("a=x", "a=y"))).hasMessage("--runs-on names 'a' twice");
    }
}
