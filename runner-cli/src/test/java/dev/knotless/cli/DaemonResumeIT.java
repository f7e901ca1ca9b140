package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.runner.state.RunRecord;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of the real daemon process while a run's step prints in its Kubernetes Job, then a
 * restart on the same state as the same runner: the run is resumed in the same Job, not ended,
 * the step is followed from where the log stopped, and the check ends {@code success} with every
 * step once and every line of output once, in order; nothing is left in the namespace. And a run
 * killed while its pod is still pending ends once at the restart, and the run queued behind it starts.
 * And the kill matrix on Kubernetes ({@link KillMatrix}).
 *
 * <p>Why it takes 4-7 minutes: three daemons' lives on the real cluster, each stop waiting until
 * its runs' Jobs and pods are gone, a pending pod held until its timeout, and the matrix's daemon
 * started four times under five runs of 40 s.
 */
class DaemonResumeIT {

    @RegisterExtension static final ClusterNamespace NAMESPACE = new ClusterNamespace("knotless-resume-");
    static final int LINES = 300;
    /**
     * How long a daemon's stop may take here: it waits for its runs' closes, and a Kubernetes
     * close waits up to 150 s for the Job to be gone (JobDeletion.WAIT). On the test cluster some
     * deletes end only at a once-a-minute tick (all at the same second of the minute within a run;
     * the kubelet's one-minute sync is the likely one), 25-85 s after they were asked
     * (bench/results/suite.md, "The test suite's own time"); a run ended just before a stop then holds it
     * past a minute. The kill matrix allows the same.
     */
    static final Duration STOP = Duration.ofSeconds(200);

    @TempDir Path tmp;
    final String runnerId = "resume-it-" + UUID.randomUUID().toString().substring(0, 8);
    final List<DaemonProcess> daemons = new ArrayList<>();

    @AfterEach
    void daemonsStop() throws Exception { // before ClusterNamespace looks for leftovers
        for (DaemonProcess d : daemons) {
            d.close();
        }
    }

    DaemonProcess daemon(Path state, String logName, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "--state-dir", state.toString(), "--runner-id", runnerId, "--discover", "--poll-interval", "200ms",
                "--executor", "kubernetes", "--kubeconfig", NAMESPACE.scoped().toString(), "--namespace", NAMESPACE.name,
                "--pending-timeout", "90s", "--kill-grace", "2s", "--stop-grace", "5s", "--image", ExecIT.IMAGE,
                "--listen", "127.0.0.1:0", "--public-read"));
        args.addAll(ClusterNamespace.UNENFORCED_POLICY_ACCEPTED);
        args.addAll(List.of(extra));
        DaemonProcess d = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve(logName), args);
        daemons.add(d);
        return d;
    }

    /**
     * SIGKILL while a run's pod is still pending (the first process asks for a node label no node
     * has, so the scheduler cannot place it) and a second run waits in the queue behind it; the
     * restart (which asks for no such label) ends the pending run once, {@code error} "runner
     * restarted", sweeps its Job and pod, and starts the waiting run, which passes: no run twice,
     * nothing left in the namespace.
     */
    @Test
    void aRunKilledWhileItsPodIsPendingEndsOnceAndTheQueuedRunStarts() throws Exception {
        Path state = tmp.resolve("state");
        String workflow = "image: " + ExecIT.IMAGE + "\non: push\nsteps:\n  - name: only\n    run: echo ran-once\n";
        Upstream upstream = Upstream.create(tmp.resolve("repo"), "acme/pending",
                Map.of("a.yaml", workflow, "b.yaml", workflow), state, runnerId);
        DaemonProcess first = daemon(state, "first.log", "--concurrency", "1", "--node-selector", "knotless.dev/no-such-node=1");
        first.await("the baseline", DaemonProcess.STARTS, () -> upstream.baselined(state));
        upstream.commitOnMain("go");
        upstream.push(List.of("main"));

        try (KubernetesClient client = NAMESPACE.adminClient()) {
            first.await("one run's pod pending, unschedulable, and the other run queued", Duration.ofSeconds(120), () -> {
                try {
                    List<RunRecord> runs = DaemonKillIT.runs(state);
                    boolean oneEach = runs.size() == 2 && runs.stream().filter(r -> r.status() == CheckStatus.RUNNING).count() == 1
                            && runs.stream().filter(r -> r.status() == CheckStatus.PENDING).count() == 1;
                    return oneEach && client.pods().inNamespace(NAMESPACE.name).list().getItems().stream()
                            .anyMatch(p -> "Pending".equals(p.getStatus().getPhase()) && p.getStatus().getConditions().stream()
                                    .anyMatch(c -> "PodScheduled".equals(c.getType()) && "Unschedulable".equals(c.getReason())));
                } catch (Exception e) {
                    return false;
                }
            });
            first.kill();
            List<RunRecord> atKill = DaemonKillIT.runs(state);
            String pending = atKill.stream().filter(r -> r.status() == CheckStatus.RUNNING).findFirst().orElseThrow().id();
            String queued = atKill.stream().filter(r -> r.status() == CheckStatus.PENDING).findFirst().orElseThrow().id();
            assertThat(client.batch().v1().jobs().inNamespace(NAMESPACE.name).list().getItems())
                    .as("the kill leaves the pending run's Job").hasSize(1);

            long restarted = System.nanoTime();
            DaemonProcess second = daemon(state, "second.log", "--concurrency", "1");
            second.await("both runs ended", Duration.ofSeconds(120), () -> {
                try {
                    return DaemonKillIT.runs(state).stream().allMatch(r -> r.status().isFinal());
                } catch (Exception e) {
                    return false;
                }
            });
            System.out.printf("restart with a pending pod: both runs ended %d ms after the restart%n",
                    (System.nanoTime() - restarted) / 1_000_000);
            Map<String, RunRecord> end = new java.util.HashMap<>();
            DaemonKillIT.runs(state).forEach(r -> end.put(r.id(), r));
            assertThat(end.get(pending).status()).isEqualTo(CheckStatus.ERROR);
            assertThat(end.get(pending).reason()).isEqualTo("runner restarted");
            assertThat(end.get(queued).status()).as(end.get(queued).reason() + "\n" + second.log()).isEqualTo(CheckStatus.SUCCESS);
            assertThat(second.log()).contains("run " + pending + " error: runner restarted")
                    .contains("left by an earlier process of runner " + runnerId);
            List<String> started = new ArrayList<>();
            for (String text : List.of(first.log(), second.log())) {
                Matcher m = DaemonKillIT.STARTED.matcher(text);
                while (m.find()) {
                    started.add(m.group(1));
                }
            }
            assertThat(started).as("runs started, over both processes").doesNotHaveDuplicates().contains(queued);
            assertThat(Files.readString(state.resolve("logs").resolve(queued + ".log")).lines()
                    .filter(l -> l.equals("ran-once"))).as("the queued run's step ran once").hasSize(1);
            assertThat(second.stop(STOP)).as(second.log()).isZero();
        }
    }

    @Test
    void aRunCaughtMidStepByASigkillIsResumedAndEndsWithItsWholeLog() throws Exception {
        Path state = tmp.resolve("state");
        String workflow = "image: " + ExecIT.IMAGE + "\non: push\nsteps:\n"
                + "  - name: first\n    run: echo first-step-ran\n"
                + "  - name: count\n    run: |\n      i=0\n      while [ $i -lt " + LINES + " ]; do i=$((i+1)); echo line-$i; sleep 0.05; done\n"
                + "  - name: last\n    run: echo last-step-ran\n";
        Upstream upstream = Upstream.create(tmp.resolve("repo"), "acme/resume", Map.of("long.yaml", workflow), state, runnerId);

        DaemonProcess first = daemon(state, "first.log");
        first.await("the baseline", DaemonProcess.STARTS, () -> upstream.baselined(state));
        upstream.commitOnMain("go");
        upstream.push(List.of("main"));

        // Kill once the step has printed a good part of its lines: its Job goes on without the runner.
        Path[] log = new Path[1];
        first.await("the counting step half way", Duration.ofSeconds(180), () -> {
            try {
                List<RunRecord> runs = DaemonKillIT.runs(state);
                if (runs.size() != 1) {
                    return false;
                }
                log[0] = state.resolve("logs").resolve(runs.get(0).id() + ".log");
                return Files.exists(log[0]) && Files.readString(log[0]).contains("line-100\n");
            } catch (Exception e) {
                return false;
            }
        });
        first.kill();
        String runId = DaemonKillIT.runs(state).get(0).id();
        assertThat(DaemonKillIT.runs(state).get(0).status()).isEqualTo(CheckStatus.RUNNING);
        try (KubernetesClient client = NAMESPACE.adminClient()) {
            assertThat(client.batch().v1().jobs().inNamespace(NAMESPACE.name).list().getItems())
                    .as("the kill leaves the run's Job").hasSize(1);
        }

        DaemonProcess second = daemon(state, "second.log");
        second.await("the run ended", Duration.ofSeconds(180), () -> {
            try {
                return DaemonKillIT.runs(state).get(0).status().isFinal();
            } catch (Exception e) {
                return false;
            }
        });
        RunRecord end = DaemonKillIT.runs(state).get(0);
        String text = Files.readString(log[0]);
        assertThat(end.status()).as(end.reason() + "\n" + text + "\n" + second.log()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(end.check().steps()).extracting(StepResult::name).containsExactly("first", "count", "last");
        assertThat(end.check().steps()).extracting(StepResult::status).containsOnly(StepStatus.SUCCESS);

        List<String> printed = text.lines().filter(l -> l.startsWith("line-")).toList();
        assertThat(printed).as(text).containsExactlyElementsOf(IntStream.rangeClosed(1, LINES).mapToObj(i -> "line-" + i).toList());
        assertThat(text.lines().filter(l -> l.equals("first-step-ran"))).as("the first step ran once").hasSize(1);
        assertThat(text.lines().filter(l -> l.equals("last-step-ran"))).as("the last step ran once").hasSize(1);
        assertThat(text).contains("[knotless] the runner restarted: going on in job ");
        text.lines().filter(l -> l.contains("the runner restarted")).forEach(System.out::println);
        assertThat(second.log()).contains("run " + runId + " resumed in job ").doesNotContain("run " + runId + " error");
        Matcher serving = Pattern.compile("status page and API on (http://\\S+/)").matcher(second.log());
        assertThat(serving.find()).as(second.log()).isTrue();
        String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(serving.group(1) + "metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        assertThat(metrics).contains("knotless_executor_resumes_total{result=\"resumed\"} 1.0",
                "knotless_executor_resumes_total{result=\"gone\"} 0.0", "knotless_runs_finished_total{status=\"success\"} 1.0");
        assertThat(second.stop(STOP)).as(second.log()).isZero();
        assertThat(ClusterNamespace.refusals(first.log())).as("the killed daemon's log").isEmpty();
        assertThat(ClusterNamespace.refusals(second.log())).as("the restarted daemon's log").isEmpty();
    }

    /**
     * The Kubernetes matrix's sizes, smaller than docker's and the node's as the test cluster
     * takes seconds a pod: the suite's, and the benchmark's (bench/kill-matrix kubernetes).
     */
    static final KillMatrix.Size MATRIX = KillMatrix.Size.of(
            new KillMatrix.Size(5, 3, 40, Duration.ofSeconds(2), Duration.ofSeconds(8)),
            new KillMatrix.Size(10, 5, 60, Duration.ofSeconds(2), Duration.ofSeconds(8)));

    /**
     * SIGKILL at seeded random moments under runs going at once in Kubernetes Jobs ({@link
     * KillMatrix}; 3 kills under 5 runs in the suite, 5 under 10 in bench/kill-matrix): 0 lost, 0
     * run twice, no Job or pod left, every check final, and the runs a kill caught in a step end
     * with their real exit codes.
     */
    @Test
    void seededKillsUnderRunsLoseNoneAndDoubleNone() throws Exception {
        List<String> args = new ArrayList<>(List.of("--executor", "kubernetes", "--kubeconfig", NAMESPACE.scoped().toString(),
                "--namespace", NAMESPACE.name, "--pending-timeout", "120s"));
        args.addAll(ClusterNamespace.UNENFORCED_POLICY_ACCEPTED);
        KillMatrix matrix = new KillMatrix(tmp, runnerId, new KillMatrix.Target("kubernetes", args, ExecIT.IMAGE, true, runner -> {
            try (KubernetesClient client = NAMESPACE.adminClient()) {
                List<String> left = new ArrayList<>();
                client.batch().v1().jobs().inNamespace(NAMESPACE.name).list().getItems()
                        .forEach(j -> left.add("job/" + j.getMetadata().getName()));
                client.pods().inNamespace(NAMESPACE.name).list().getItems()
                        .forEach(p -> left.add("pod/" + p.getMetadata().getName()));
                return left;
            }
        }));
        try {
            KillMatrix.Report report = matrix.run(MATRIX);
            assertThat(report.caughtInAStep()).as("runs the kills caught in a step").isPositive();
        } finally {
            matrix.close();
        }
    }
}
