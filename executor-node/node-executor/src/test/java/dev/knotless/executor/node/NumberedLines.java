package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.StepPayload;
import java.util.List;
import java.util.Map;

/** A step printing {@code line-1} to {@code line-N} in order, and the check that every one arrived once. */
record NumberedLines(int count, String pauseEveryHundred) {

    /** Prints the lines, pausing every hundred, then {@code done} on stderr, and exits {@code exitCode}. */
    StepPayload step(int exitCode) {
        return stepWaitingHalfwayFor("/dev/null", exitCode);
    }

    /** As {@link #step}, waiting after the first half of the lines until {@code file} exists. */
    StepPayload stepWaitingHalfwayFor(String file, int exitCode) {
        return new StepPayload("step", List.of("/bin/sh", "-c", "i=1; while [ $i -le " + count + " ]; do echo line-$i; i=$((i+1)); "
                + "case $i in " + (count / 2 + 1) + ") while [ ! -e " + file + " ]; do sleep 0.1; done;; esac; "
                + "case $i in *00) sleep " + pauseEveryHundred + ";; esac; done; echo done >&2; exit " + exitCode), Map.of());
    }

    /** No gap, no repeat, in order. */
    void assertWhole(String stdout) {
        List<String> lines = stdout.lines().toList();
        for (int i = 0; i < Math.min(lines.size(), count); i++) {
            assertThat(lines.get(i)).as("line %d", i + 1).isEqualTo("line-" + (i + 1));
        }
        assertThat(lines).hasSize(count);
        assertThat(stdout).endsWith("\n");
    }
}
