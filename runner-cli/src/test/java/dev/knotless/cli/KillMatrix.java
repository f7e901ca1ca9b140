package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.checks.StepResult;
import dev.knotless.runner.daemon.Planner;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.testkit.Figures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The daemon killed again and again: {@code runs} runs queued at once through the real daemon
 * process, which is SIGKILLed at {@code kills} seeded random moments and started again each time
 * on the same state as the same runner, then left to finish. Checked at the end: every planned run
 * has exactly one final check, agreeing with its check file (0 lost); no run started twice; no
 * step's output twice (0 run twice); the executor holds nothing of the runner (0 orphans); and every
 * run that a kill caught in a step ends with its real outcome, exit code included, where the
 * executor can resume. A run the kill caught before its first step (its environment starting) may
 * end {@code error} "runner restarted": that is the one clear reason of a run that had not begun.
 *
 * <p>The moments come from a {@link Random} with a fixed seed (printed, and settable with
 * {@code -Dknotless.killSeed=N}), so a failure can be replayed with the same kill times.
 *
 * <p>Two sizes ({@link Size}): the suite's proves the mechanism (a handful of kills, each meeting
 * runs at work, some caught in a step); the full size, {@code -Dknotless.killMatrix=full}, is
 * the benchmark {@code bench/kill-matrix} runs, whose figures docs/design/runs.md keeps.
 */
final class KillMatrix {

    static final int WORKFLOWS = 5;
    /** The last workflow's work step exits with this, so a resumed step must bring back a real non-zero code. */
    static final int FAILING_EXIT = 3;

    /** Where runs go: the daemon's flags for the executor, and what of the runner it still holds. */
    record Target(String executor, List<String> daemonArgs, String image, boolean resumes, Leftovers leftovers) {}

    @FunctionalInterface
    interface Leftovers {
        List<String> of(String runnerId) throws Exception;
    }

    /**
     * How many runs, how many kills, how long each run's work step prints (a line a second), and
     * the range each kill's moment is drawn from (after half the runs going are in a step).
     */
    record Size(int runs, int kills, int lines, Duration minDelay, Duration maxDelay) {

        /** The size asked for: {@code full} with {@code -Dknotless.killMatrix=full} (bench/kill-matrix), else {@code suite}. */
        static Size of(Size suite, Size full) {
            return "full".equals(System.getProperty("knotless.killMatrix")) ? full : suite;
        }
    }

    /** What the matrix saw, printed and returned for the caller's own assertions. */
    record Report(int runs, int kills, int killsThatMetRuns, int caughtInAStep, int endedRestarted, Map<CheckStatus, Long> byStatus, Duration took) {}

    private final Path tmp;
    private final String runnerId;
    private final Target target;
    private final List<DaemonProcess> daemons = new ArrayList<>();

    KillMatrix(Path tmp, String runnerId, Target target) {
        this.tmp = tmp;
        this.runnerId = runnerId;
        this.target = target;
    }

    static long seed() {
        return Long.getLong("knotless.killSeed", 20261202L);
    }

    /** Five workflows: a short first step, then a work step printing a line a second for {@code lines} seconds. */
    static Map<String, String> workflows(String image, int lines) {
        Map<String, String> files = new LinkedHashMap<>();
        for (int w = 1; w <= WORKFLOWS; w++) {
            int exit = w == WORKFLOWS ? FAILING_EXIT : 0;
            files.put("w" + w + ".yaml", "image: " + image + "\non: push\nsteps:\n"
                    + "  - name: first\n    run: echo first-w" + w + "\n"
                    + "  - name: work\n    run: |\n      i=0\n      while [ $i -lt " + lines + " ]; do i=$((i+1)); echo w" + w
                    + "-line-$i; sleep 1; done\n      exit " + exit + "\n");
        }
        return files;
    }

    static List<String> workLines(int w, int lines) {
        return java.util.stream.IntStream.rangeClosed(1, lines).mapToObj(i -> "w" + w + "-line-" + i).toList();
    }

    private DaemonProcess daemon(Path state, int concurrency) throws Exception {
        List<String> args = new ArrayList<>(List.of("--state-dir", state.toString(), "--runner-id", runnerId, "--discover",
                "--concurrency", String.valueOf(concurrency), "--poll-interval", "200ms", "--kill-grace", "2s",
                "--stop-grace", "10s", "--image", target.image()));
        args.addAll(target.daemonArgs());
        DaemonProcess d = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve("daemon-" + daemons.size() + ".log"), args);
        daemons.add(d);
        return d;
    }

    /** Runs the matrix; the daemons it started are stopped by {@link #close}. */
    Report run(Size size) throws Exception {
        int runs = size.runs();
        int kills = size.kills();
        int lines = size.lines();
        Duration minDelay = size.minDelay();
        Duration maxDelay = size.maxDelay();
        long seed = seed();
        Random moments = new Random(seed);
        Path state = tmp.resolve("state");
        int branches = runs / WORKFLOWS;
        Upstream upstream = Upstream.create(tmp.resolve("repo"), "kill/" + target.executor(), workflows(target.image(), lines), state,
                runnerId);
        long started = System.nanoTime();

        Set<String> expected = new HashSet<>();
        Map<String, Integer> workflowOf = new HashMap<>();
        Set<String> caughtInAStep = new HashSet<>();
        int metRuns = 0;
        for (int k = 0; k <= kills; k++) {
            long born = System.nanoTime();
            DaemonProcess d = daemon(state, runs);
            d.await("the daemon watching, after its recovery", Duration.ofMinutes(3), () -> d.log().contains(" watching "));
            long recovered = (System.nanoTime() - born) / 1_000_000;
            if (k == 0) {
                d.await("the baseline", DaemonProcess.STARTS, () -> upstream.baselined(state));
                Map<String, String> made = upstream.branches("kill", branches);
                upstream.push(List.copyOf(made.keySet()));
                for (String sha : made.values()) {
                    for (int w = 1; w <= WORKFLOWS; w++) {
                        String id = Planner.runId(runnerId, upstream.name, "w" + w, Event.PUSH, sha);
                        expected.add(id);
                        workflowOf.put(id, w);
                    }
                }
            }
            if (k == kills) {
                d.await("every run ended", Duration.ofMinutes(10), () -> allFinal(state, expected.size()));
                // A run is final in the store before its environment is closed; the daemon's stop
                // waits for those closes, and a Kubernetes Job's deletion waits up to 150 s for the
                // kubelet to confirm its pod gone (JobDeletion.WAIT), which it took past 60 s once
                // beside a loaded suite.
                assertThat(d.stop(Duration.ofSeconds(200))).as(d.log()).isZero();
                break;
            }
            // Each moment is counted from when half the runs going are in a step, so that every kill
            // meets runs at work (and, the first, some still starting).
            d.await("half the runs going in a step", Duration.ofMinutes(5),
                    () -> allFinal(state, expected.size()) || halfInAStep(state));
            long atWork = (System.nanoTime() - born) / 1_000_000;
            long delay = minDelay.toMillis() + (long) (moments.nextDouble() * (maxDelay.toMillis() - minDelay.toMillis()));
            Thread.sleep(delay);
            d.kill();
            List<RunRecord> atKill = DaemonKillIT.runs(state);
            int inStep = 0;
            for (RunRecord r : atKill) {
                if (r.status() == CheckStatus.RUNNING && inAStep(state, r.id())) {
                    caughtInAStep.add(r.id());
                    inStep++;
                }
            }
            Map<CheckStatus, Long> counts = DaemonKillIT.byStatus(atKill);
            if (counts.getOrDefault(CheckStatus.RUNNING, 0L) > 0) {
                metRuns++;
            }
            System.out.printf("%s kill %d after %d ms (watching %d ms after its start, half in a step at %d ms): %d final,"
                            + " %d running (%d in a step), %d waiting%n", target.executor(), k + 1, delay, recovered, atWork,
                    counts.entrySet().stream().filter(e -> e.getKey().isFinal()).mapToLong(Map.Entry::getValue).sum(),
                    counts.getOrDefault(CheckStatus.RUNNING, 0L), inStep, counts.getOrDefault(CheckStatus.PENDING, 0L));
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        List<RunRecord> end = DaemonKillIT.runs(state);
        String logs = daemons.stream().map(DaemonProcess::log).collect(Collectors.joining("\n"));

        assertThat(end).extracting(RunRecord::id).as("exactly the planned runs, each once (0 lost)")
                .containsExactlyInAnyOrderElementsOf(expected).doesNotHaveDuplicates();
        assertThat(end).allMatch(r -> r.status().isFinal(), "every check final");
        checkFilesAgree(state, end);
        assertThat(started(logs)).as("runs started, over every process (0 run twice)").doesNotHaveDuplicates().isSubsetOf(expected);

        int restarted = 0;
        for (RunRecord r : end) {
            int w = workflowOf.get(r.id());
            String log = Files.readString(state.resolve("logs").resolve(r.id() + ".log"));
            List<String> printed = log.lines().filter(l -> l.startsWith("w" + w + "-line-")).toList();
            assertThat(printed).as(r.id() + ": the work step's lines at most once each\n" + log).doesNotHaveDuplicates();
            assertThat(log.lines().filter(l -> l.equals("first-w" + w))).as(r.id() + ": the first step once").hasSizeLessThan(2);
            boolean restartedError = r.status() == CheckStatus.ERROR && "runner restarted".equals(r.reason());
            if (restartedError) {
                restarted++;
                assertThat(!target.resumes() || !caughtInAStep.contains(r.id()))
                        .as(r.id() + " was caught in a step and " + target.executor() + " resumes, yet it ended: " + r.reason()
                                + "\n" + linesAbout(logs, r.id()) + "\n" + log)
                        .isTrue();
                continue;
            }
            assertThat(r.status()).as(r.id() + ": " + r.reason() + "\n" + log)
                    .isEqualTo(w == WORKFLOWS ? CheckStatus.FAILURE : CheckStatus.SUCCESS);
            assertThat(r.check().steps()).extracting(StepResult::name).containsExactly("first", "work");
            assertThat(r.check().steps().get(1).exitCode()).as(r.id() + " exit code of 'work'")
                    .isEqualTo(w == WORKFLOWS ? FAILING_EXIT : 0);
            assertThat(printed).as(r.id() + ": the work step's output whole, once, in order (no gap, no repeat)\n" + log)
                    .containsExactlyElementsOf(workLines(w, lines));
        }
        assertThat(target.leftovers().of(runnerId)).as("what " + target.executor() + " holds of the runner after the last stop")
                .isEmpty();
        Report report = new Report(expected.size(), kills, metRuns, caughtInAStep.size(), restarted, new TreeMap<>(DaemonKillIT.byStatus(end)),
                took);
        System.out.printf("%s kill matrix, seed %d: %d runs, %d kills (%d met running runs), %d runs caught in a step, %d ended"
                        + " 'runner restarted', final %s, 0 lost, 0 twice, 0 orphans, in %d s%n", target.executor(), seed, report.runs(),
                kills, metRuns,
                report.caughtInAStep(), restarted, report.byStatus(), took.toSeconds());
        // A figure at the benchmark's size only: the suite's smaller matrix proves the mechanism, it measures nothing to keep.
        if ("full".equals(System.getProperty("knotless.killMatrix"))) {
            Figures.report("kill-matrix." + target.executor(), "0 lost, 0 twice, 0 orphans", String.format(java.util.Locale.ROOT,
                    "%d runs, %d kills, %d caught in a step, %d ended 'runner restarted', %d s, seed %d", report.runs(), kills,
                    report.caughtInAStep(), restarted, took.toSeconds(), seed));
        }
        return report;
    }

    /** Whether the run's log shows it in its steps: a step's output line or the runner's step notice. */
    private static boolean inAStep(Path state, String runId) {
        try {
            Path log = state.resolve("logs").resolve(runId + ".log");
            return Files.exists(log) && Files.readString(log).contains("first-w");
        } catch (Exception e) {
            return false;
        }
    }

    private static boolean halfInAStep(Path state) {
        try {
            List<RunRecord> going = DaemonKillIT.runs(state).stream().filter(r -> !r.status().isFinal()).toList();
            long inAStep = going.stream().filter(r -> r.status() == CheckStatus.RUNNING && inAStep(state, r.id())).count();
            return inAStep > 0 && inAStep * 2 >= going.size();
        } catch (Exception e) {
            return false;
        }
    }

    private static boolean allFinal(Path state, int expected) {
        try {
            List<RunRecord> now = DaemonKillIT.runs(state);
            return now.size() == expected && now.stream().allMatch(r -> r.status().isFinal());
        } catch (Exception e) {
            return false;
        }
    }

    private static void checkFilesAgree(Path state, List<RunRecord> end) throws Exception {
        ObjectMapper json = new ObjectMapper();
        Map<String, String> fileStatus = new HashMap<>();
        try (Stream<Path> list = Files.list(state.resolve("checks"))) {
            for (Path file : list.filter(p -> p.getFileName().toString().endsWith(".json")).toList()) {
                JsonNode check = json.readTree(file.toFile());
                fileStatus.put(check.get("id").asText(), check.get("status").asText());
            }
        }
        assertThat(fileStatus).as("one check file per run").hasSize(end.size());
        for (RunRecord r : end) {
            assertThat(fileStatus.get(r.id())).as(r.id() + " check file").isEqualTo(r.status().wireName());
        }
    }

    /** The daemons' log lines naming the run, for a failure's message. */
    private static String linesAbout(String logs, String runId) {
        return logs.lines().filter(l -> l.contains(runId)).limit(60).collect(Collectors.joining("\n"));
    }

    private static List<String> started(String logs) {
        List<String> started = new ArrayList<>();
        Matcher m = DaemonKillIT.STARTED.matcher(logs);
        while (m.find()) {
            started.add(m.group(1));
        }
        return started;
    }

    void close() throws InterruptedException {
        for (DaemonProcess d : daemons) {
            d.close();
        }
    }
}
