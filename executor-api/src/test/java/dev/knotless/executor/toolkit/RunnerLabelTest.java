package dev.knotless.executor.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RunnerLabelTest {

    /** Kubernetes label values; the node protocol's ([A-Za-z0-9._:@/-]{0,128}) takes all of these. */
    private static final Pattern KUBERNETES = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?");
    private static final Pattern NODE = Pattern.compile("[A-Za-z0-9._:@/-]{0,128}");

    @ParameterizedTest
    @ValueSource(strings = {"ci-1", "local-0a1b2c3d", "runner_2.example"})
    void anIdThatFitsIsItsOwnLabel(String id) {
        assertThat(RunnerLabel.of(id)).isEqualTo(id);
    }

    @ParameterizedTest
    @ValueSource(strings = {"did:plc:ewvi7nxzyoun6zhxrhs64oiz", "did:web:ci.example.com%3A8443:runners:a", "ends-with-dash-",
            "did:web:a-very-long-host-name-that-goes-on.and-on.example.com%3A8443:runners:team:build:x86-64"})
    void anyOtherIdLabelsReadablyAndFitsEveryExecutor(String id) {
        String label = RunnerLabel.of(id);
        assertThat(label).matches(KUBERNETES).matches(NODE).isNotEqualTo(id).endsWith("-" + RunnerLabel.hash(id));
        assertThat(RunnerLabel.of(id)).as("stable").isEqualTo(label);
    }

    @Test
    void aDidReadsAsItselfWithItsPunctuationPlain() {
        assertThat(RunnerLabel.of("did:web:ci.example.com%3A8443:runners:a"))
                .isEqualTo("did-web-ci.example.com-3A8443-runners-a-" + RunnerLabel.hash("did:web:ci.example.com%3A8443:runners:a"));
    }

    @Test
    void twoIdsThatATruncationWouldMergeLabelApart() {
        String head = "did:web:ci.example.com%3A8443:runners:" + "x".repeat(40);
        String a = head + ":a";
        String b = head + ":b";
        assertThat(RunnerLabel.of(a).substring(0, 52)).isEqualTo(RunnerLabel.of(b).substring(0, 52));
        assertThat(RunnerLabel.of(a)).isNotEqualTo(RunnerLabel.of(b));
    }
}
