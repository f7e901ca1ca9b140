package dev.knotless.runner.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateStoreDurabilityTest {

    @TempDir
    Path stateDir;

    @Test
    void everyRunReportedQueuedBeforeAKillNineIsThereOnReopen() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"),
                EnqueueUntilKilled.class.getName(), stateDir.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        List<String> reported = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while (reported.size() < 150 && (line = out.readLine()) != null) {
                reported.add(line);
            }
            // Killed mid-stride: it is enqueueing more while we kill it.
            child.toHandle().destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            while ((line = out.readLine()) != null) {
                reported.add(line);
            }
        } finally {
            child.destroyForcibly();
        }
        assertThat(reported).hasSizeGreaterThanOrEqualTo(150);

        try (StateStore store = StateStore.open(stateDir)) {
            Set<String> stored = new HashSet<>();
            store.runs().runs(Filter.recent().limit(1_000_000)).forEach(r -> stored.add(r.id()));
            assertThat(stored).containsAll(reported);
            // Runs taken before the kill are found going: what a restarting daemon recovers.
            assertThat(store.runs().going()).isNotEmpty();
        }
    }
}
