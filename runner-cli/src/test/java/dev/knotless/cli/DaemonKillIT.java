package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.runner.daemon.Planner;
import dev.knotless.runner.state.Filter;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL of the real daemon process in the middle of 20 runs, then a restart on the same state
 * directory as the same runner: every planned run ends in exactly one final check, none is lost or
 * run twice, those the kill caught running are resumed in their containers or, when not yet in a
 * step, end {@code error} "runner restarted", and the containers the kill left are swept. And a
 * run killed while its image is still being pulled ends {@code error} "runner restarted", with no
 * container, while the runs waiting behind it start. And the kill matrix on docker ({@link KillMatrix}).
 *
 * <p>Why it takes 2-3 minutes: the matrix's daemon started six times under ten runs whose work
 * step prints for 40 s, which is the matrix's point (kills that meet runs in a step).
 */
class DaemonKillIT {

    static final int WORKFLOWS = 5;
    static final int BRANCHES_PER_REPO = 2;
    static final Pattern STARTED = Pattern.compile(" run (\\S+) started$", Pattern.MULTILINE);

    @TempDir Path tmp;
    final String runnerId = "kill-it-" + UUID.randomUUID().toString().substring(0, 8);
    final List<DaemonProcess> daemons = new ArrayList<>();

    @AfterEach
    void nothingIsLeftBehind() throws Exception {
        for (DaemonProcess d : daemons) {
            d.close();
        }
        assertThat(Docker.containersOf(runnerId)).as("containers left by " + runnerId).isEmpty();
    }

    DaemonProcess daemon(Path state, String logName) throws IOException {
        return daemon(state, logName, "4");
    }

    DaemonProcess daemon(Path state, String logName, String concurrency) throws IOException {
        DaemonProcess d = DaemonProcess.runner(tmp.resolve(logName), state, runnerId, "--concurrency", concurrency,
                "--stop-grace", "5s");
        daemons.add(d);
        return d;
    }

    /**
     * SIGKILL while a run's image is being pulled (from a registry on loopback that accepts and
     * never answers, so the engine's pull hangs; no container exists yet) and the runs behind it
     * wait (concurrency 1); the restart ends the pulling run once, {@code error} "runner
     * restarted", with no container made for it, and the waiting runs start once each and pass.
     */
    @Test
    void aRunKilledWhileItsImageIsPullingEndsOnceAndTheWaitingRunsStart() throws Exception {
        Path state = tmp.resolve("state");
        try (ServerSocket registry = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            List<Socket> held = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread.ofVirtual().start(() -> {
                while (!registry.isClosed()) {
                    try {
                        held.add(registry.accept()); // held open, never answered
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            String slowImage = "127.0.0.1:" + registry.getLocalPort() + "/knotless/slow:1";
            Map<String, String> files = new LinkedHashMap<>();
            files.put("a-slow.yaml", "image: " + slowImage + "\non: push\nsteps:\n  - {name: never, run: echo never}\n");
            for (String w : List.of("b", "c")) {
                files.put(w + ".yaml", "image: " + ExecIT.IMAGE + "\non: push\nsteps:\n  - {name: work, run: echo " + w + "-ran}\n");
            }
            Upstream upstream = Upstream.create(tmp.resolve("one"), "acme/pull", files, state, runnerId);
            DaemonProcess first = daemon(state, "first.log", "1");
            first.await("the baseline", DaemonProcess.STARTS, () -> upstream.baselined(state));
            String sha = upstream.commitOnMain("go");
            upstream.push(List.of("main"));
            String slow = Planner.runId(runnerId, upstream.name, "a-slow", Event.PUSH, sha);

            first.await("the slow run pulling its image", Duration.ofSeconds(120), () -> {
                try {
                    return !held.isEmpty() && runs(state).stream()
                            .anyMatch(r -> r.id().equals(slow) && r.status() == CheckStatus.RUNNING);
                } catch (IOException e) {
                    return false;
                }
            });
            first.kill();
            List<RunRecord> atKill = runs(state);
            long waiting = atKill.stream().filter(r -> r.status() == CheckStatus.PENDING).count();
            System.out.printf("at the kill: the slow run pulling, %d run(s) waiting, %d container(s)%n", waiting,
                    Docker.runContainersOf(runnerId).size());
            assertThat(atKill).hasSize(3);
            assertThat(Docker.runContainersOf(runnerId)).as("a pulling run has no container yet").isEmpty();

            DaemonProcess second = daemon(state, "second.log", "1");
            second.await("every run ended", Duration.ofSeconds(120), () -> {
                try {
                    return runs(state).stream().allMatch(r -> r.status().isFinal());
                } catch (IOException e) {
                    return false;
                }
            });
            assertThat(second.stop(Duration.ofSeconds(60))).as(second.log()).isZero();
            for (RunRecord r : runs(state)) {
                if (r.id().equals(slow)) {
                    assertThat(r.status()).isEqualTo(CheckStatus.ERROR);
                    assertThat(r.reason()).isEqualTo("runner restarted");
                } else {
                    assertThat(r.status()).as(r.id() + ": " + r.reason()).isEqualTo(CheckStatus.SUCCESS);
                    assertThat(Files.readString(state.resolve("logs").resolve(r.id() + ".log")).lines()
                            .filter(l -> l.endsWith("-ran"))).as(r.id() + " ran once").hasSize(1);
                }
            }
            List<String> started = new ArrayList<>();
            for (String log : List.of(first.log(), second.log())) {
                Matcher m = STARTED.matcher(log);
                while (m.find()) {
                    started.add(m.group(1));
                }
            }
            assertThat(started).as("runs started, over both processes").doesNotHaveDuplicates();
            assertThat(second.log()).contains("run " + slow + " error: runner restarted").doesNotContain(slow + " started");
            for (Socket s : held) {
                s.close();
            }
        }
    }

    static Map<String, String> workflows() {
        Map<String, String> files = new LinkedHashMap<>();
        for (int w = 1; w <= WORKFLOWS; w++) {
            // Steps long enough that the kill finds runs in a step, short enough to keep the test brisk.
            files.put("w" + w + ".yaml", "image: " + ExecIT.IMAGE + "\non: push\nsteps:\n  - name: work\n    run: |\n"
                    + "      echo w" + w + " on $(git rev-parse HEAD)\n      sleep 3\n");
        }
        return files;
    }

    static List<RunRecord> runs(Path state) throws IOException {
        try (StateStore store = StateStore.open(state)) {
            return store.runs().runs(new Filter(null, null, 1000));
        }
    }

    static Map<CheckStatus, Long> byStatus(List<RunRecord> runs) {
        return runs.stream().collect(Collectors.groupingBy(RunRecord::status, Collectors.counting()));
    }

    @Test
    void aSigkillInTheMiddleOfTwentyRunsLosesNoneAndDoublesNone() throws Exception {
        Path state = tmp.resolve("state");
        List<Upstream> upstreams = List.of(
                Upstream.create(tmp.resolve("one"), "acme/one", workflows(), state, runnerId),
                Upstream.create(tmp.resolve("two"), "acme/two", workflows(), state, runnerId));

        DaemonProcess first = daemon(state, "first.log");
        for (Upstream u : upstreams) {
            first.await("the baseline of " + u.name, DaemonProcess.STARTS, () -> u.baselined(state));
        }

        // What must run: every workflow at the head of every pushed branch; the ids the planner derives.
        Set<String> expected = new HashSet<>();
        for (Upstream u : upstreams) {
            Map<String, String> made = u.branches("kill", BRANCHES_PER_REPO);
            u.push(List.copyOf(made.keySet()));
            for (String sha : made.values()) {
                for (int w = 1; w <= WORKFLOWS; w++) {
                    expected.add(Planner.runId(runnerId, u.name, "w" + w, Event.PUSH, sha));
                }
            }
        }
        assertThat(expected).hasSize(20);

        // Kill while some runs have ended, some are in their step and some still wait. One run must
        // have been taken 0.7-2.5 s ago: its container is made by then and its 3 s step keeps it
        // alive past the kill (a container seen a moment earlier may belong to a run just ending).
        first.await("some runs ended and others are in a container", Duration.ofSeconds(120), () -> {
            try {
                List<RunRecord> now = runs(state);
                Map<CheckStatus, Long> counts = byStatus(now);
                Instant from = Instant.now().minusMillis(2500);
                Instant to = Instant.now().minusMillis(700);
                boolean justStarted = now.stream().anyMatch(r -> r.status() == CheckStatus.RUNNING && r.startedAt() != null
                        && r.startedAt().isAfter(from) && r.startedAt().isBefore(to));
                return counts.getOrDefault(CheckStatus.SUCCESS, 0L) >= 2 && counts.getOrDefault(CheckStatus.PENDING, 0L) >= 4
                        && justStarted && Docker.runContainersOf(runnerId).size() >= 2;
            } catch (IOException | InterruptedException e) {
                return false;
            }
        });
        first.kill();

        List<RunRecord> atKill = runs(state);
        Set<String> runningAtKill = atKill.stream().filter(r -> r.status() == CheckStatus.RUNNING).map(RunRecord::id)
                .collect(Collectors.toSet());
        Set<String> doneAtKill = atKill.stream().filter(r -> r.status().isFinal()).map(RunRecord::id)
                .collect(Collectors.toSet());
        List<String> leftByKill = Docker.runContainersOf(runnerId);
        assertThat(atKill).extracting(RunRecord::id).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(runningAtKill).as("runs the kill caught running").isNotEmpty();
        assertThat(leftByKill).as("SIGKILL leaves the running runs' containers").isNotEmpty();
        System.out.printf("at the kill: %d done, %d running, %d waiting, %d container(s) left%n", doneAtKill.size(),
                runningAtKill.size(), atKill.size() - doneAtKill.size() - runningAtKill.size(), leftByKill.size());

        DaemonProcess second = daemon(state, "second.log");
        second.await("every run ended", Duration.ofSeconds(180), () -> {
            try {
                List<RunRecord> now = runs(state);
                return now.size() == expected.size() && now.stream().allMatch(r -> r.status().isFinal());
            } catch (IOException e) {
                return false;
            }
        });
        assertThat(second.stop(Duration.ofSeconds(60))).as(second.log()).isZero();

        List<RunRecord> end = runs(state);
        assertThat(end).extracting(RunRecord::id).as("exactly the planned runs, each once")
                .containsExactlyInAnyOrderElementsOf(expected).doesNotHaveDuplicates();
        for (RunRecord r : end) {
            if (runningAtKill.contains(r.id()) && r.status() != CheckStatus.SUCCESS) { // else resumed in its container
                assertThat(r.status()).as(r.id()).isEqualTo(CheckStatus.ERROR);
                assertThat(r.reason()).as(r.id()).isEqualTo("runner restarted");
            } else {
                assertThat(r.status()).as(r.id() + ": " + r.reason()).isEqualTo(CheckStatus.SUCCESS);
            }
        }

        // One check file per run, agreeing with the state store.
        Map<String, CheckStatus> finalStatus = end.stream().collect(Collectors.toMap(RunRecord::id, RunRecord::status));
        List<Path> files;
        try (Stream<Path> list = Files.list(state.resolve("checks"))) {
            files = list.filter(p -> p.getFileName().toString().endsWith(".json")).toList();
        }
        ObjectMapper json = new ObjectMapper();
        Map<String, String> fileStatus = new LinkedHashMap<>();
        for (Path file : files) {
            JsonNode check = json.readTree(file.toFile());
            fileStatus.put(check.get("id").asText(), check.get("status").asText());
        }
        assertThat(files).hasSize(expected.size());
        assertThat(fileStatus).hasSize(expected.size());
        finalStatus.forEach((id, status) -> assertThat(fileStatus.get(id)).as(id).isEqualTo(status.wireName()));

        // No run started twice across the two processes; every run not caught by the kill started once.
        List<String> started = new ArrayList<>();
        for (String log : List.of(first.log(), second.log())) {
            Matcher m = STARTED.matcher(log);
            while (m.find()) {
                started.add(m.group(1));
            }
        }
        // A run taken just before the kill may not have written its line yet; every other one has.
        Set<String> mustHaveStarted = new HashSet<>(expected);
        mustHaveStarted.removeAll(runningAtKill);
        assertThat(started).as("runs started, over both processes").doesNotHaveDuplicates()
                .isSubsetOf(expected).containsAll(mustHaveStarted);
        Matcher firstStarts = STARTED.matcher(first.log());
        Set<String> startedByFirst = new HashSet<>();
        while (firstStarts.find()) {
            startedByFirst.add(firstStarts.group(1));
        }
        assertThat(startedByFirst).containsAll(doneAtKill);
        for (String id : runningAtKill) {
            assertThat(second.log()).containsAnyOf("run " + id + " error: runner restarted", "run " + id + " resumed in container");
        }
        if (end.stream().anyMatch(r -> r.status() == CheckStatus.ERROR)) {
            assertThat(second.log()).contains("left by an earlier process of runner " + runnerId);
        }
        assertThat(Docker.containersOf(runnerId)).as("containers after the restart").isEmpty();
    }

    /** The docker matrix's sizes: the suite's, and the benchmark's (bench/kill-matrix docker). */
    static final KillMatrix.Size MATRIX = KillMatrix.Size.of(
            new KillMatrix.Size(10, 5, 40, Duration.ofMillis(500), Duration.ofSeconds(4)),
            new KillMatrix.Size(50, 20, 150, Duration.ofMillis(500), Duration.ofSeconds(4)));

    /**
     * SIGKILL at seeded random moments under runs going at once on docker ({@link KillMatrix}; 5
     * kills under 10 runs in the suite, 20 under 50 in bench/kill-matrix): 0 lost, 0 run twice, 0
     * containers left, every check final, and the runs a kill caught in a step end with their real
     * exit codes.
     */
    @Test
    void seededKillsUnderRunsOnDockerLoseNoneAndDoubleNone() throws Exception {
        KillMatrix matrix = new KillMatrix(tmp, runnerId, new KillMatrix.Target("docker", List.of(), ExecIT.IMAGE, true,
                Docker::containersOf));
        try {
            KillMatrix.Report report = matrix.run(MATRIX);
            assertThat(report.caughtInAStep()).as("runs the kills caught in a step").isPositive();
        } finally {
            matrix.close();
        }
    }
}
