package dev.knotless.cli;

import dev.knotless.checks.CheckStatus;
import dev.knotless.runner.state.Filter;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.Figures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * Soak of the real daemon process on the Docker executor: RUNS trivial runs queued at once (one
 * push of many branches, several workflows each), {@code --concurrency} N. Samples the daemon's heap
 * and threads from outside while they run, then prints a verdict: all complete, the heap retained
 * after a full GC at the end vs at the start, the thread count at its peak and at the end vs at the
 * start. Run by {@code bench/daemon-soak [RUNS=200] [CONCURRENCY=8] [SAMPLE_SECONDS=5]}.
 */
public final class DaemonSoak {

    static final int WORKFLOWS = 5;
    /** Retained heap may grow by this much and still count as flat: class loading and JIT settle late. */
    static final long HEAP_SLACK_KB = 16 * 1024;
    /**
     * How long the daemon is left idle before the end is measured, so that pool threads with a
     * keep-alive (the JDK's process reaper: 60 s) have ended. The virtual-thread scheduler keeps the
     * carriers it added while runs blocked; those are reported, and bounded by the runs at once.
     */
    static final Duration IDLE = Duration.ofSeconds(70);

    record Sample(long seconds, int done, int running, int waiting, long heapKb, int threads, long rssKb) {}

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int concurrency = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int sampleSeconds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        // the rest are the daemon's own flags, e.g. --no-warm-containers for a side-by-side run
        List<String> extra = args.length > 3 ? List.of(args).subList(3, args.length) : List.of();
        int branches = (runs + WORKFLOWS - 1) / WORKFLOWS;
        int expected = branches * WORKFLOWS;
        Path root = Path.of("").toAbsolutePath();
        Path tmp = Files.createTempDirectory("daemon-soak");
        Path state = tmp.resolve("state");
        String runnerId = "soak-" + UUID.randomUUID().toString().substring(0, 8);

        Map<String, String> workflows = new LinkedHashMap<>();
        for (int w = 1; w <= WORKFLOWS; w++) {
            workflows.put("w" + w + ".yaml", "image: " + ExecIT.IMAGE + "\non: push\nsteps:\n  - name: trivial\n    run: 'true'\n");
        }
        Upstream upstream = Upstream.create(tmp.resolve("repo"), "soak/app", workflows, state, runnerId);
        boolean ok;
        List<String> flags = new java.util.ArrayList<>(List.of("--state-dir", state.toString(), "--runner-id", runnerId, "--discover",
                "--concurrency", String.valueOf(concurrency), "--poll-interval", "500ms", "--image", ExecIT.IMAGE));
        flags.addAll(extra);
        try (DaemonProcess daemon = DaemonProcess.start(root, tmp.resolve("daemon.log"), flags)) {
            daemon.await("the baseline", DaemonProcess.STARTS, () -> upstream.baselined(state));
            JvmProbe probe = new JvmProbe(daemon.pid());
            long startHeap = probe.heapRetainedKb();
            int startThreads = probe.threads();
            Map<String, Integer> startNames = probe.threadNames();
            long startRss = probe.rssKb();
            System.out.printf("daemon pid %d, runner %s: %d runs (%d branches x %d workflows), --concurrency %d%n",
                    daemon.pid(), runnerId, expected, branches, WORKFLOWS, concurrency);
            System.out.printf("start (idle, after full GC): heap %s, threads %d, rss %s%n%n", mib(startHeap), startThreads, mib(startRss));

            Map<String, String> made = upstream.branches("soak", branches);
            Instant pushed = Instant.now();
            upstream.push(List.copyOf(made.keySet()));

            System.out.printf("%6s %6s %8s %8s %10s %8s %10s%n", "t (s)", "done", "running", "waiting", "heap used", "threads", "rss");
            List<Sample> samples = new ArrayList<>();
            Instant deadline = pushed.plus(Duration.ofMinutes(30));
            while (true) {
                Thread.sleep(sampleSeconds * 1000L);
                Sample s = sample(state, probe, Duration.between(pushed, Instant.now()).toSeconds());
                samples.add(s);
                System.out.printf("%6d %6d %8d %8d %10s %8d %10s%n", s.seconds(), s.done(), s.running(), s.waiting(),
                        mib(s.heapKb()), s.threads(), mib(s.rssKb()));
                if (s.done() >= expected || Instant.now().isAfter(deadline) || !daemon.process.isAlive()) {
                    break;
                }
            }
            Duration took = Duration.between(pushed, Instant.now());
            int doneThreads = probe.threads();
            Thread.sleep(IDLE.toMillis());
            long endHeap = probe.heapRetainedKb();
            int endThreads = probe.threads();
            Map<String, Integer> endNames = probe.threadNames();
            long endRss = probe.rssKb();
            int maxThreads = samples.stream().mapToInt(Sample::threads).max().orElse(endThreads);
            int half = samples.size() / 2;
            int firstHalfMax = samples.subList(0, half).stream().mapToInt(Sample::threads).max().orElse(0);
            int secondHalfMax = samples.subList(half, samples.size()).stream().mapToInt(Sample::threads).max().orElse(0);
            long maxHeap = samples.stream().mapToLong(Sample::heapKb).max().orElse(endHeap);

            List<RunRecord> all = runs(state);
            long success = all.stream().filter(r -> r.status() == CheckStatus.SUCCESS).count();
            long notSuccess = all.size() - success;
            List<String> left = Docker.runContainersOf(runnerId); // a warm one waits while the daemon runs

            System.out.printf("%nthreads when the last run ended: %d%n", doneThreads);
            System.out.printf("end (idle %d s, after full GC): heap %s, threads %d, rss %s; peak heap used %s, peak threads %d%n",
                    IDLE.toSeconds(), mib(endHeap), endThreads, mib(endRss), mib(maxHeap), maxThreads);
            printChanged(startNames, endNames);
            System.out.printf("%d runs in %.1f s (%.1f runs/min)%n", all.size(), took.toMillis() / 1000.0,
                    all.size() * 60_000.0 / Math.max(1, took.toMillis()));
            boolean allComplete = all.size() == expected && success == expected;
            boolean heapFlat = endHeap <= startHeap + HEAP_SLACK_KB;
            boolean threadsBounded = secondHalfMax <= firstHalfMax + 2;
            verdict(allComplete, "all " + expected + " runs complete: " + success + " success, " + notSuccess + " other");
            verdict(heapFlat, "retained heap flat: " + mib(startHeap) + " -> " + mib(endHeap)
                    + " (allowed +" + mib(HEAP_SLACK_KB) + ")");
            verdict(threadsBounded, "threads do not grow with runs: peak " + firstHalfMax + " in the first half of the samples, "
                    + secondHalfMax + " in the second (allowed +2)");
            System.out.println("INFO threads when idle again: " + startThreads + " at start, " + endThreads + " after "
                    + IDLE.toSeconds() + " s idle (the changed names are listed above)");
            verdict(left.isEmpty(), "no run's container left: " + left.size());
            ok = allComplete && heapFlat && threadsBounded && left.isEmpty();
            if (allComplete) {
                // The key carries the daemon flags, so a side-by-side run (--no-warm-containers) keeps a figure of its own.
                String key = "daemon-soak." + expected + "x" + concurrency + extra.stream().map(f -> "." + f.replaceAll("^-+", ""))
                        .collect(java.util.stream.Collectors.joining()).toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
                Figures.report(key, heapFlat && threadsBounded ? "flat" : "grows", String.format(java.util.Locale.ROOT,
                        "retained heap %s → %s, threads %d / %d / %d (start / peak / end); %d runs in %.1f s", mib(startHeap),
                        mib(endHeap), startThreads, maxThreads, endThreads, all.size(), took.toMillis() / 1000.0));
            }
            if (!allComplete) {
                all.stream().filter(r -> r.status() != CheckStatus.SUCCESS).limit(5)
                        .forEach(r -> System.out.println("  " + r.id() + " " + r.status().wireName() + ": " + r.reason()));
            }
            int exit = daemon.stop(Duration.ofSeconds(60));
            verdict(exit == 0, "daemon stopped on SIGTERM with status " + exit);
            List<String> afterStop = Docker.containersOf(runnerId);
            verdict(afterStop.isEmpty(), "no container of the runner left after the stop (warm ones included): " + afterStop.size());
            ok &= exit == 0 && afterStop.isEmpty();
        }
        if (ok) {
            delete(tmp);
        } else {
            System.out.println("kept for a look: " + tmp);
        }
        System.exit(ok ? 0 : 1);
    }

    /** The thread names whose count differs between start and end. */
    static void printChanged(Map<String, Integer> start, Map<String, Integer> end) {
        SortedSet<String> names = new TreeSet<>(start.keySet());
        names.addAll(end.keySet());
        for (String name : names) {
            int a = start.getOrDefault(name, 0);
            int b = end.getOrDefault(name, 0);
            if (a != b) {
                System.out.printf("  threads \"%s\": %d at start, %d at end%n", name, a, b);
            }
        }
    }

    static Sample sample(Path state, JvmProbe probe, long seconds) throws IOException, InterruptedException {
        int done = 0;
        int running = 0;
        int waiting = 0;
        for (RunRecord r : runs(state)) {
            if (r.status().isFinal()) {
                done++;
            } else if (r.status() == CheckStatus.RUNNING) {
                running++;
            } else {
                waiting++;
            }
        }
        return new Sample(seconds, done, running, waiting, probe.heapUsedKb(), probe.threads(), probe.rssKb());
    }

    static List<RunRecord> runs(Path state) throws IOException {
        try (StateStore store = StateStore.open(state)) {
            return store.runs().runs(new Filter(null, null, 1000));
        }
    }

    static void verdict(boolean pass, String what) {
        System.out.println((pass ? "PASS " : "FAIL ") + what);
    }

    static String mib(long kb) {
        return String.format("%.1f MiB", kb / 1024.0);
    }

    static void delete(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
