package dev.knotless.checks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckStoreTest {

    @TempDir Path state;

    @Test
    void aSavedCheckReadsBackEqualAndStepsWithoutExitCodeSayNull() throws Exception {
        CheckStore store = new CheckStore(state);
        Check check = new Check("r1", "repo", "abc", "refs/heads/main", "ci", "push", "local", "docker",
                CheckStatus.FAILURE, "step 'wait' timed out after 2s",
                Instant.parse("2026-01-01T00:00:00Z"), Instant.parse("2026-01-01T00:00:05Z"),
                List.of(new StepResult("build", StepStatus.SUCCESS, 0, 10, null),
                        new StepResult("wait", StepStatus.FAILURE, null, 2000, "timed out after 2s")),
                List.of(new Output("plot.png", "image/png", 67, "/x/plot.png")),
                store.logPath("r1").toString());
        store.save(check);
        assertThat(store.load("r1")).contains(check);
        assertThat(store.list()).containsExactly(check);
        String json = new CheckJson().line(check);
        assertThat(json).contains("\"exitCode\":null").contains("\"status\":\"failure\"").contains("\"startedAt\":\"2026-01-01T00:00:00Z\"");
    }
}
