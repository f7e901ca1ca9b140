package dev.knotless.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.checks.ExecutorName;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.Trust;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.runner.forge.Poller;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.QueuedRun;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.Figures;
import dev.knotless.testkit.TestRepo;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The daemon at scale (bench/daemon-scale): REPOS watched repositories and CHECKS stored checks, the
 * real daemon process on the Docker executor. Prints its resident memory, what a poll round costs
 * beside {@code git ls-remote} of every repository in a row (the raw tool the poll uses), the CPU it
 * takes at the poll interval, {@code /api/runs?limit=50} latency and the status page's first paint.
 */
final class DaemonScale {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Pattern POLLS = Pattern.compile("(?m)^knotless_forge_poll_seconds_count (\\S+)$");
    private static final Pattern POLL_SECONDS = Pattern.compile("(?m)^knotless_forge_poll_seconds_sum (\\S+)$");
    private static final long TICKS_PER_SECOND = 100; // USER_HZ on Linux

    public static void main(String[] args) throws Exception {
        int repos = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int checks = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        Duration interval = args.length > 2 ? new DurationConverter().convert(args[2]) : Duration.ofSeconds(30);
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        Path tmp = Files.createTempDirectory("knotless-daemon-scale");
        try {
            run(tmp, repos, checks, interval, rounds);
        } finally {
            new ProcessBuilder("rm", "-rf", tmp.toString()).start().waitFor();
        }
    }

    private static void run(Path tmp, int repos, int checks, Duration interval, int rounds) throws Exception {
        Path state = tmp.resolve("state");
        Instant t = Instant.now();
        List<Path> dirs = repositories(tmp.resolve("repos"), state, repos);
        Duration repoSetUp = Duration.between(t, Instant.now());
        t = Instant.now();
        storeChecks(state, repos, checks);
        Duration checkSetUp = Duration.between(t, Instant.now());
        System.out.printf("daemon at scale: %d watched repositories, %d stored checks (set-up: repositories %.1f s, checks %.1f s)%n",
                repos, checks, repoSetUp.toMillis() / 1000.0, checkSetUp.toMillis() / 1000.0);

        long rawCpuBefore = cpuTicks(ProcessHandle.current().pid());
        Duration raw = lsRemoteAll(dirs);
        double rawCpu = (cpuTicks(ProcessHandle.current().pid()) - rawCpuBefore) / (double) TICKS_PER_SECOND;

        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String base = "http://127.0.0.1:" + port;
        try (DaemonProcess daemon = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve("daemon.log"), List.of(
                "--state-dir", state.toString(), "--runner-id", "bench", "--poll-interval", args(interval),
                "--image", DaemonIT.IMAGE, "--discover", "--listen", "127.0.0.1:" + port, "--public-read"))) {
            Instant started = Instant.now();
            daemon.await("the first poll round", Duration.ofMinutes(10), () -> polls(base)[0] >= repos);
            Duration firstRound = Duration.between(started, Instant.now());
            // The scheduler's first look reads every repository's schedules (a mirror each, made
            // whole and then renamed into place); the steady state is measured from the end of the
            // first poll round after it.
            Path mirrors = state.resolve("mirrors");
            daemon.await("the scheduler's first look", Duration.ofMinutes(15), () -> mirrorCount(mirrors) >= repos);
            Duration firstLook = Duration.between(started, Instant.now());
            double roundEnd = (Math.floor(polls(base)[0] / repos) + 1) * repos;
            daemon.await("the poll round going on to end", Duration.ofMinutes(10), () -> polls(base)[0] >= roundEnd);

            double[] before = polls(base);
            long cpuBefore = cpuTicks(daemon.pid());
            Instant windowStart = Instant.now();
            daemon.await(rounds + " more poll rounds", interval.multipliedBy(rounds + 2).plusMinutes(5),
                    () -> polls(base)[0] >= before[0] + (double) rounds * repos);
            Duration window = Duration.between(windowStart, Instant.now());
            long cpu = cpuTicks(daemon.pid()) - cpuBefore;
            double[] after = polls(base);
            double pollSeconds = (after[1] - before[1]) / ((after[0] - before[0]) / repos);
            // The loop polls, dispatches, then waits the interval: a round's wall time is what the
            // interval leaves of the time between rounds (polls overlap, so their sum is more).
            double roundSeconds = window.toMillis() / 1000.0 / rounds - interval.toMillis() / 1000.0;
            double cpuShare = 100.0 * cpu / TICKS_PER_SECOND / (window.toMillis() / 1000.0);

            List<Long> api = apiLatencies(base + "/api/runs?limit=50", 50);
            String paint = firstPaint(tmp, base);
            long[] memory = memoryKiB(daemon.pid());

            System.out.printf("%-58s %14s %12s%n", "what", "measured", "goal");
            System.out.printf("%-58s %11d MiB %12s%n", "resident memory after the rounds (VmRSS)", memory[0] / 1024, "≤ 512 MiB");
            System.out.printf("%-58s %11d MiB %12s%n", "its peak (VmHWM)", memory[1] / 1024, "");
            System.out.printf("%-58s %12.1f s %12s%n", "first poll round (baselines), from the process start", firstRound.toMillis() / 1000.0, "");
            System.out.printf("%-58s %12.1f s %12s%n", "scheduler's first look (a mirror of each), from the start", firstLook.toMillis() / 1000.0, "");
            System.out.printf("%-58s %12.1f s %12s%n", "poll round (wall): time between rounds less the interval", roundSeconds, "≤ 10 s");
            System.out.printf("%-58s %12.1f s %12s%n", "the round's polls added up (" + Poller.PARALLELISM + " at once)", pollSeconds, "");
            System.out.printf("%-58s %12.1f s %12s%n", "raw: git ls-remote of each repository, one after another", raw.toMillis() / 1000.0, "");
            System.out.printf("%-58s %12.2f x %12s%n", "ratio (raw / daemon; above 1 is faster than the raw tool)",
                    raw.toMillis() / 1000.0 / roundSeconds, "");
            System.out.printf("%-58s %12.1f %% %12s%n", "CPU of one core over " + rounds + " rounds at " + args(interval)
                    + " (" + window.toSeconds() + " s)", cpuShare, "≤ 25 %");
            System.out.printf("%-58s %12.1f s %12s%n", "CPU a round: the daemon (with its git) / raw ls-remote",
                    cpu / (double) TICKS_PER_SECOND / rounds, "");
            System.out.printf("%-58s %12.1f s %12s%n", "", rawCpu, "");
            System.out.printf("%-58s %9d/%d ms %12s%n", "/api/runs?limit=50 median/p90 of 50", percentile(api, 50),
                    percentile(api, 90), "≤ 50 ms");
            System.out.printf("%-58s %14s %12s%n", "status page: first contentful paint / runs list shown", paint, "≤ 1000 ms");

            System.out.println();
            String scale = String.format(Locale.ROOT, "%,d repositories, %,d checks", repos, checks);
            Figures.report("daemon-scale.rss", memory[0] / 1024 + " MiB", scale + "; peak (VmHWM) " + memory[1] / 1024 + " MiB");
            Figures.report("daemon-scale.poll-round", String.format(Locale.ROOT, "%.1f s", roundSeconds), String.format(Locale.ROOT,
                    "git ls-remote of each in a row %.1f s (%.2f×); %s", raw.toMillis() / 1000.0, raw.toMillis() / 1000.0 / roundSeconds,
                    scale));
            Figures.report("daemon-scale.cpu", String.format(Locale.ROOT, "%.1f %%", cpuShare),
                    "of one core, " + rounds + " rounds at " + args(interval) + "; " + scale);
            Figures.report("daemon-scale.api", percentile(api, 50) + " ms", "/api/runs?limit=50, median of 50; p90 " + percentile(api, 90)
                    + " ms");
            String[] painted = paint.replace(" ms", "").split(" / ");
            Figures.report("daemon-scale.page", painted[0] + " ms", "first contentful paint; the runs list shown at " + painted[1] + " ms");
        }
    }

    /** One repository made with git, the others copies of it: each its own upstream, watched by this runner. */
    private static List<Path> repositories(Path dir, Path state, int count) throws Exception {
        TestRepo template = new TestRepo(dir.resolve("template"))
                .workflow("ci.yaml", "image: " + DaemonIT.IMAGE + "\non: [push]\nsteps: [{run: 'true'}]\n");
        template.commit();
        EmbeddedForge forge = new EmbeddedForge(state.resolve("forge"), Cursors.inMemory());
        List<Path> dirs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Path copy = dir.resolve("r" + i);
            Process cp = new ProcessBuilder("cp", "-a", template.dir.toString(), copy.toString()).inheritIO().start();
            if (cp.waitFor() != 0) {
                throw new IOException("cp -a failed for " + copy);
            }
            forge.add(new Repository("scale/r" + i, copy.toString(), "main", List.of("bench"), List.of()));
            dirs.add(copy);
        }
        return dirs;
    }

    /** Ended checks spread over the repositories, each of its own commit, with three steps, as the daemon stores them. */
    private static void storeChecks(Path state, int repos, int count) throws IOException {
        Random random = new Random(20261203);
        HexFormat hex = HexFormat.of();
        Instant start = Instant.now().minus(Duration.ofDays(90));
        try (StateStore store = StateStore.open(state)) {
            for (int i = 0; i < count; i++) {
                byte[] sha = new byte[20];
                random.nextBytes(sha);
                String commit = hex.formatHex(sha);
                String repo = "scale/r" + (i % repos);
                String id = commit.substring(0, 12) + "-ci";
                Instant at = start.plusSeconds(i * 60L);
                boolean passed = random.nextInt(10) != 0;
                List<StepResult> steps = List.of(
                        new StepResult("checkout", StepStatus.SUCCESS, 0, 800, null),
                        new StepResult("build", StepStatus.SUCCESS, 0, 30_000, null),
                        new StepResult("test", passed ? StepStatus.SUCCESS : StepStatus.FAILURE, passed ? 0 : 1, 60_000, null));
                Check check = new Check(id, repo, commit, "refs/heads/main", "ci", Event.PUSH, "bench", ExecutorName.of("docker"),
                        passed ? CheckStatus.SUCCESS : CheckStatus.FAILURE, passed ? null : "step test exited with 1",
                        at, at.plusSeconds(91), steps, List.of(), null);
                store.runs().record(new QueuedRun(id, repo, commit, "refs/heads/main", "ci", Event.PUSH, Trust.TRUSTED, "bench"), check);
            }
        }
    }

    private static Duration lsRemoteAll(List<Path> dirs) throws Exception {
        Instant t = Instant.now();
        for (Path dir : dirs) {
            Process p = new ProcessBuilder("git", "ls-remote", dir.toString()).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            if (p.waitFor() != 0) {
                throw new IOException("git ls-remote " + dir + " failed");
            }
        }
        return Duration.between(t, Instant.now());
    }

    /** The count and the seconds of the daemon's polls so far; zeroes while it does not answer. */
    private static double[] polls(String base) {
        try {
            String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Matcher count = POLLS.matcher(metrics);
            Matcher sum = POLL_SECONDS.matcher(metrics);
            return count.find() && sum.find() ? new double[] {Double.parseDouble(count.group(1)), Double.parseDouble(sum.group(1))}
                    : new double[] {0, 0};
        } catch (IOException e) {
            return new double[] {0, 0};
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new double[] {0, 0};
        }
    }

    private static long mirrorCount(Path mirrors) {
        try (var entries = Files.list(mirrors)) {
            return entries.filter(p -> Files.isDirectory(p) && !p.getFileName().toString().contains(".clone-")).count();
        } catch (IOException e) {
            return 0;
        }
    }

    /** utime + stime of the process and of its children it has waited for (git): /proc/PID/stat fields 14–17. */
    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // f[0] is field 3 (state): field N is f[N - 3]
        return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
    }

    /** VmRSS and VmHWM in KiB. */
    private static long[] memoryKiB(long pid) throws IOException {
        long rss = 0;
        long peak = 0;
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = Long.parseLong(line.replaceAll("\\D", ""));
            } else if (line.startsWith("VmHWM:")) {
                peak = Long.parseLong(line.replaceAll("\\D", ""));
            }
        }
        return new long[] {rss, peak};
    }

    private static List<Long> apiLatencies(String url, int n) throws Exception {
        HttpRequest get = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build();
        for (int i = 0; i < 5; i++) {
            HTTP.send(get, HttpResponse.BodyHandlers.ofString());
        }
        List<Long> ms = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long s = System.nanoTime();
            HttpResponse<String> r = HTTP.send(get, HttpResponse.BodyHandlers.ofString());
            ms.add((System.nanoTime() - s) / 1_000_000);
            if (r.statusCode() != 200 || !r.body().startsWith("[{")) {
                throw new IOException(url + " answered " + r.statusCode() + ": " + r.body().substring(0, Math.min(200, r.body().length())));
            }
        }
        return ms;
    }

    /** The first contentful paint and when the runs list was shown, in ms from navigation, in headless Chromium. */
    private static String firstPaint(Path tmp, String base) throws Exception {
        try (Chromium browser = new Chromium(tmp.resolve("chromium"))) {
            browser.viewport(1200, 900);
            browser.navigate(base + "/#/runs");
            browser.await("the runs list", "document.querySelectorAll('#runs tr[data-run]').length > 0", Duration.ofSeconds(30));
            JsonNode paint = browser.eval("JSON.stringify([(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || -1,"
                    + " Math.max(...performance.getEntriesByType('resource').filter(e => e.name.includes('/api/runs')).map(e => e.responseEnd))])");
            JsonNode values = HttpDaemon.JSON.readTree(paint.asText());
            return Math.round(values.get(0).asDouble()) + " / " + Math.round(values.get(1).asDouble()) + " ms";
        }
    }

    private static long percentile(List<Long> values, int p) {
        List<Long> sorted = values.stream().sorted(Comparator.naturalOrder()).toList();
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    private static String args(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    private DaemonScale() {}
}
