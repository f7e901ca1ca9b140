package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.checks.CheckStatus;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.testkit.PrivateEngine;
import dev.knotless.testkit.TestImages;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Docker Engine restarted under the runner, on a {@link PrivateEngine} (the shared engine runs
 * everyone's containers and the test cluster's pods, so it is never restarted): SIGTERM to its
 * {@code dockerd}, live-restore off, so every container stops, and the engine started again.
 */
class DockerEngineRestartFaultIT {

    @TempDir Path tmp;
    final String runnerId = "engine-fault-it-" + UUID.randomUUID().toString().substring(0, 8);
    PrivateEngine engine;
    final List<DaemonProcess> daemons = new ArrayList<>();

    @BeforeEach
    void privateEngine() throws Exception {
        Assumptions.assumeTrue(PrivateEngine.possible(), "a private Docker Engine needs root and dockerd");
        engine = PrivateEngine.start(Path.of("/tmp/knotless-engine-" + runnerId), TestImages.ensureBuilt());
    }

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        try {
            for (DaemonProcess d : daemons) {
                d.close();
            }
            if (engine != null) {
                assertThat(engine.containers("dev.knotless.runner=" + runnerId)).as("containers left by " + runnerId).isEmpty();
            }
        } finally {
            if (engine != null) {
                engine.close();
            }
        }
    }

    /**
     * A step printing a line every 100 ms when the engine restarts: the run ends {@code error} with
     * one line saying the container stopped, the later step is skipped, the log holds every line the
     * step printed before, once and in order, and the container is removed once the engine is back.
     */
    @Test
    void aRunMidStepWhenTheEngineRestartsEndsAsAnErrorNamingTheStoppedContainer() throws Exception {
        Path state = tmp.resolve("state");
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                steps:
                  - name: print
                    run: |
                      i=0
                      while [ $i -lt 900 ]; do echo "tick $i"; i=$((i+1)); sleep 0.1; done
                  - name: after
                    run: 'true'
                """.formatted(ExecIT.IMAGE));
        repo.commit();
        CompletableFuture<CliRun> run = CompletableFuture.supplyAsync(() -> {
            try {
                return CliRun.exec(state, runnerId, repo.dir, "--docker-socket", engine.socket().toString());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Path log = awaitLog(state, "tick 20\n");
        long restart = System.nanoTime();
        engine.restart();
        System.out.printf("engine restarted in %d ms%n", (System.nanoTime() - restart) / 1_000_000);
        CliRun r = run.get(120, TimeUnit.SECONDS);
        System.out.printf("the run ended %d ms after the restart began%n", (System.nanoTime() - restart) / 1_000_000);

        JsonNode check = r.checks().getFirst();
        assertThat(r.exit()).as(r.err()).isEqualTo(3);
        assertThat(check.get("status").asText()).as(check.toString()).isEqualTo("error");
        String reason = check.get("reason").asText();
        System.out.println("the check's reason: " + reason);
        assertThat(reason).as("one clear line").doesNotContain("\n").doesNotContain("Exception")
                .contains("step 'print'").containsPattern("container \\S+ stopped|Docker Engine restarted");
        JsonNode print = check.get("steps").get(0);
        assertThat(print.get("status").asText()).isEqualTo("error");
        assertThat(print.get("exitCode").isNull()).as("no exit code: the step did not end by itself").isTrue();
        assertThat(check.get("steps").get(1).get("status").asText()).isEqualTo("skipped");
        assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
        assertWholeLog(Files.readString(log));
    }

    /**
     * A daemon's run that starts while the engine is down (between its stop and its start, as in a
     * restart) waits for the engine and passes, instead of ending at once with "cannot reach the
     * Docker Engine": the daemon would otherwise turn its whole queue into errors during a restart.
     * (A one-shot exec whose engine never answered fails at once: that is a wrong socket.)
     */
    @Test
    void aDaemonsRunStartedWhileTheEngineIsDownWaitsForItAndPasses() throws Exception {
        Path state = tmp.resolve("state");
        Upstream upstream = Upstream.create(tmp.resolve("repo"), "acme/outage", Map.of("ci.yaml",
                "image: " + ExecIT.IMAGE + "\non: push\nsteps:\n  - name: only\n    run: echo ran-after-the-outage\n"), state, runnerId);
        DaemonProcess daemon = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve("daemon.log"), List.of("--state-dir",
                state.toString(), "--runner-id", runnerId, "--discover", "--poll-interval", "200ms", "--image", ExecIT.IMAGE,
                "--docker-socket", engine.socket().toString()));
        daemons.add(daemon);
        daemon.await("the baseline", DaemonProcess.STARTS, () -> upstream.baselined(state));
        engine.stop();
        upstream.commitOnMain("during the outage");
        upstream.push(List.of("main"));
        daemon.await("the run taken", Duration.ofSeconds(60), () -> daemon.log().contains(" started"));
        Thread.sleep(3_000);
        assertThat(DaemonKillIT.runs(state)).as("the run waits while the engine is down")
                .allMatch(r -> !r.status().isFinal());
        long restarted = System.nanoTime();
        engine.restart();
        daemon.await("the run ended", Duration.ofSeconds(120),
                () -> ended(state, 1));
        System.out.printf("the waiting run ended %d ms after the engine was started again%n", (System.nanoTime() - restarted) / 1_000_000);
        RunRecord end = DaemonKillIT.runs(state).getFirst();
        assertThat(end.status()).as(end.reason() + "\n" + daemon.log()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(Files.readString(state.resolve("logs").resolve(end.id() + ".log"))).contains("ran-after-the-outage");
        assertThat(daemon.stop(Duration.ofSeconds(60))).isZero();
    }

    /**
     * The warm pool hands out only containers that still run: the container waiting for the next
     * run is stopped by the restart, so the next run gets a fresh one and passes.
     */
    @Test
    void theWarmPoolDiscardsAContainerTheRestartStoppedAndTheNextRunPasses() throws Exception {
        Path state = tmp.resolve("state");
        String workflow = "image: " + ExecIT.IMAGE + "\non: push\nsteps:\n  - {name: work, run: echo warm-ran}\n";
        Upstream upstream = Upstream.create(tmp.resolve("repo"), "acme/warm", Map.of("w.yaml", workflow), state, runnerId);
        DaemonProcess daemon = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve("daemon.log"), List.of(
                "--state-dir", state.toString(), "--runner-id", runnerId, "--discover", "--concurrency", "1",
                "--poll-interval", "200ms", "--kill-grace", "2s", "--stop-grace", "5s", "--image", ExecIT.IMAGE,
                "--docker-socket", engine.socket().toString(), "--warm-containers"));
        daemons.add(daemon);
        daemon.await("the baseline", DaemonProcess.STARTS, () -> upstream.baselined(state));

        upstream.commitOnMain("first");
        upstream.push(List.of("main"));
        daemon.await("the first run ended", Duration.ofSeconds(120), () -> ended(state, 1));
        String warmLabel = "dev.knotless.warm=true";
        daemon.await("a warm container waiting", Duration.ofSeconds(60), () -> {
            try {
                return engine.running(warmLabel).size() == 1;
            } catch (Exception e) {
                return false;
            }
        });
        String stale = engine.running(warmLabel).getFirst();
        engine.restart();
        assertThat(engine.running(warmLabel)).as("the restart stopped the warm container").isEmpty();

        upstream.commitOnMain("second");
        upstream.push(List.of("main"));
        daemon.await("the second run ended", Duration.ofSeconds(120), () -> ended(state, 2));
        List<RunRecord> runs = DaemonKillIT.runs(state);
        assertThat(runs).hasSize(2);
        for (RunRecord run : runs) {
            assertThat(run.status()).as(run.id() + ": " + run.reason() + "\n" + daemon.log()).isEqualTo(CheckStatus.SUCCESS);
            assertThat(Files.readString(state.resolve("logs").resolve(run.id() + ".log")).lines()
                    .filter(l -> l.equals("warm-ran"))).hasSize(1);
        }
        assertThat(daemon.log()).contains("warm container not taken id=" + stale);
        assertThat(engine.containers("id=" + stale)).as("the stopped warm container is removed").isEmpty();
        assertThat(daemon.stop(Duration.ofSeconds(60))).as(daemon.log()).isZero();
    }

    private static boolean ended(Path state, int count) {
        try {
            List<RunRecord> runs = DaemonKillIT.runs(state);
            return runs.size() == count && runs.stream().allMatch(r -> r.status().isFinal());
        } catch (Exception e) {
            return false;
        }
    }

    /** The step's lines from 0 on, each once, in order, with no gap; and nothing cut in the middle of a line. */
    static void assertWholeLog(String log) {
        List<String> lines = log.lines().filter(l -> l.startsWith("tick ")).toList();
        assertThat(lines).as("the step's lines in the log").hasSizeGreaterThan(20);
        for (int i = 0; i < lines.size(); i++) {
            assertThat(lines.get(i)).as("line %d of the step's output in the log", i).isEqualTo("tick " + i);
        }
    }

    static Path awaitLog(Path state, String text) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < until) {
            Path logs = state.resolve("logs");
            if (Files.isDirectory(logs)) {
                try (var files = Files.list(logs)) {
                    for (Path f : files.toList()) {
                        if (Files.readString(f).contains(text)) {
                            return f;
                        }
                    }
                }
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no log with '" + text.strip() + "' in " + state + " within 120 s; the logs' last lines:\n"
                + lastLines(state.resolve("logs")));
    }

    /** Each run log in {@code logs} with its last three lines: what a wait for a log line last saw. */
    static String lastLines(Path logs) throws java.io.IOException {
        if (!Files.isDirectory(logs)) {
            return "(no logs directory)";
        }
        StringBuilder out = new StringBuilder();
        try (var files = Files.list(logs)) {
            for (Path f : files.sorted().toList()) {
                List<String> lines = Files.readAllLines(f);
                out.append(f.getFileName()).append(":\n  ")
                        .append(String.join("\n  ", lines.subList(Math.max(0, lines.size() - 3), lines.size()))).append('\n');
            }
        }
        return out.toString();
    }
}
