package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.runner.state.RunRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of the real daemon process while two runs' steps print in their Docker containers, then
 * a restart on the same state as the same runner: each run is resumed in its container, its step
 * is followed from where its log stopped to its real exit code (0 in one, 3 in the other), the
 * later steps of the passing run run once, and no container is left.
 */
class DockerResumeIT {

    static final int LINES = 300;

    @TempDir Path tmp;
    final String runnerId = "docker-resume-it-" + UUID.randomUUID().toString().substring(0, 8);
    final List<DaemonProcess> daemons = new ArrayList<>();

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        for (DaemonProcess d : daemons) {
            d.close();
        }
        assertThat(Docker.containersOf(runnerId)).as("containers left by " + runnerId).isEmpty();
    }

    DaemonProcess daemon(Path state, String logName) throws Exception {
        DaemonProcess d = DaemonProcess.runner(tmp.resolve(logName), state, runnerId, "--concurrency", "2", "--stop-grace", "5s");
        daemons.add(d);
        return d;
    }

    static String counting(String exit) {
        return "image: " + ExecIT.IMAGE + "\non: push\nsteps:\n"
                + "  - name: first\n    run: echo first-step-ran\n"
                + "  - name: count\n    run: |\n      i=0\n      while [ $i -lt " + LINES + " ]; do i=$((i+1)); echo line-$i;"
                + " [ $((i % 50)) = 0 ] && echo err-$i >&2; sleep 0.03; done\n      exit " + exit + "\n"
                + "  - name: last\n    run: echo last-step-ran\n";
    }

    @Test
    void runsCaughtMidStepByASigkillAreFollowedToTheirStepsRealExitCode() throws Exception {
        Path state = tmp.resolve("state");
        Map<String, String> workflows = new LinkedHashMap<>();
        workflows.put("passes.yaml", counting("0"));
        workflows.put("fails.yaml", counting("3"));
        Upstream upstream = Upstream.create(tmp.resolve("repo"), "acme/docker-resume", workflows, state, runnerId);

        DaemonProcess first = daemon(state, "first.log");
        first.await("the baseline", DaemonProcess.STARTS, () -> upstream.baselined(state));
        upstream.commitOnMain("go");
        upstream.push(List.of("main"));

        // Kill once both counting steps have printed a good part of their lines.
        first.await("both counting steps a third of the way", Duration.ofSeconds(180), () -> {
            try {
                List<RunRecord> runs = DaemonKillIT.runs(state);
                if (runs.size() != 2) {
                    return false;
                }
                for (RunRecord r : runs) {
                    Path log = state.resolve("logs").resolve(r.id() + ".log");
                    if (!Files.exists(log) || !Files.readString(log).contains("line-100\n")) {
                        return false;
                    }
                }
                return true;
            } catch (Exception e) {
                return false;
            }
        });
        first.kill();
        long killed = System.nanoTime();
        assertThat(DaemonKillIT.runs(state)).extracting(RunRecord::status).containsOnly(CheckStatus.RUNNING);
        assertThat(Docker.runContainersOf(runnerId)).as("the kill leaves the runs' containers").hasSize(2);

        DaemonProcess second = daemon(state, "second.log");
        second.await("the runs ended", Duration.ofSeconds(180), () -> {
            try {
                return DaemonKillIT.runs(state).stream().allMatch(r -> r.status().isFinal());
            } catch (Exception e) {
                return false;
            }
        });
        System.out.printf("both runs ended %d ms after the kill%n", (System.nanoTime() - killed) / 1_000_000);
        for (RunRecord end : DaemonKillIT.runs(state)) {
            String text = Files.readString(state.resolve("logs").resolve(end.id() + ".log"));
            boolean passes = end.workflow().startsWith("passes");
            String why = end.reason() + "\n" + text + "\n" + second.log();
            assertThat(end.status()).as(why).isEqualTo(passes ? CheckStatus.SUCCESS : CheckStatus.FAILURE);
            List<StepResult> steps = end.check().steps();
            assertThat(steps).extracting(StepResult::name).as(why).containsExactly("first", "count", "last");
            assertThat(steps.get(1).exitCode()).as("the counting step's own exit code").isEqualTo(passes ? 0 : 3);
            assertThat(steps.get(2).status()).isEqualTo(passes ? StepStatus.SUCCESS : StepStatus.SKIPPED);

            List<String> printed = text.lines().filter(l -> l.startsWith("line-")).toList();
            assertThat(printed).as("no gap, no repeat\n" + text)
                    .containsExactlyElementsOf(IntStream.rangeClosed(1, LINES).mapToObj(i -> "line-" + i).toList());
            assertThat(text.lines().filter(l -> l.startsWith("err-")).toList()).as(text)
                    .containsExactlyElementsOf(IntStream.rangeClosed(1, LINES / 50).mapToObj(i -> "err-" + i * 50).toList());
            assertThat(text.lines().filter(l -> l.equals("first-step-ran"))).as("the first step ran once").hasSize(1);
            assertThat(text.lines().filter(l -> l.equals("last-step-ran"))).as("the last step").hasSize(passes ? 1 : 0);
            assertThat(text).contains("[knotless] the runner restarted: going on in container ");
            assertThat(second.log()).contains("run " + end.id() + " resumed in container ")
                    .doesNotContain("run " + end.id() + " error").doesNotContain("run " + end.id() + " started");
        }
        assertThat(second.stop(Duration.ofSeconds(60))).as(second.log()).isZero();
        assertThat(Docker.containersOf(runnerId)).as("containers after the runs").isEmpty();
    }
}
