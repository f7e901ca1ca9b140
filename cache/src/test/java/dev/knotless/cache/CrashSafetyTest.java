package dev.knotless.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kill -9 of a runner in the middle of promotes, for real, in a child JVM. */
class CrashSafetyTest {

    @TempDir
    Path root;

    @Test
    void aKillDashNineDuringPromotesLeavesTheOldBaseOrTheNewOneNeverAMix() throws Exception {
        Random random = new Random(42);
        long lastSeen = -1;
        for (int round = 0; round < 3; round++) {
            long first = 1_000_000L * round;
            Process runner = start(first);
            try {
                awaitReady(runner);
                Thread.sleep(100 + random.nextInt(700));
            } finally {
                runner.destroyForcibly(); // SIGKILL on Linux
                runner.waitFor(30, TimeUnit.SECONDS);
            }

            CacheStore store = new CacheStore(root, 1L << 30, Clock.systemUTC());
            Layer base = store.base(PromoteLoop.KEY, "main", "main").orElseThrow();
            long generation = PromoteLoop.generationOf(Tars.restore(store, base));
            assertThat(generation).isGreaterThanOrEqualTo(first).isGreaterThan(lastSeen);
            lastSeen = generation;
            assertThat(store.list()).hasSize(1);
        }

        // What the kills left (a half-written staging file, a temp metadata file) goes on the next prune.
        CacheStore dayLater = new CacheStore(root, 1L << 30, Clock.offset(Clock.systemUTC(), Duration.ofDays(2)));
        dayLater.prune(1L << 30);
        assertThat(CacheStoreTest.filesUnder(root.resolve("staging"))).isEmpty();
        assertThat(CacheStoreTest.filesUnder(root.resolve("layers"))).hasSize(2);
        assertThat(PromoteLoop.generationOf(Tars.restore(dayLater,
                dayLater.base(PromoteLoop.KEY, "main", "main").orElseThrow()))).isEqualTo(lastSeen);
    }

    private Process start(long firstGeneration) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"),
                PromoteLoop.class.getName(), root.toString(), Long.toString(firstGeneration));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    private static void awaitReady(Process runner) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(runner.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("the child runner's first line").isEqualTo("ready");
    }
}
