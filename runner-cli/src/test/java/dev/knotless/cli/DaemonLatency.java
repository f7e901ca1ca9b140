package dev.knotless.cli;

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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.ToLongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Event-to-first-step latency of the real daemon process on the Docker executor: N pushes one
 * after another, each timed from the moment {@code git push} returned to the moment the first step's
 * command ran. The step prints {@code /proc/uptime}: containers share the host kernel's boot-time
 * clock, so the step's own clock and this process's agree without a network round trip. Split into
 * push → queued (the poll wait and planning), queued → taken, taken → first step (container, checkout,
 * exec). Side by side: {@code docker run --rm IMAGE true} on the same machine.
 * Run by {@code bench/daemon-latency [PUSHES=20] [POLL_INTERVAL=200ms] [warm [idle]] [hook | kubernetes]}; with
 * {@code hook}, a second daemon polls hourly and hears of each push through {@code POST /hooks/git};
 * with {@code kubernetes}, the daemon runs on the test cluster ({@code scripts/test-cluster up}) in a
 * namespace of its own, side by side with {@code kubectl run --rm -i IMAGE -- true} there (a pod's
 * {@code /proc/uptime} is the host's too).
 */
public final class DaemonLatency {

    static final int WARM_UP = 2;
    static final Pattern UPTIME = Pattern.compile("(\\d+\\.\\d+) \\d+\\.\\d+");

    /**
     * One push, in milliseconds: push → queued (poll wait and planning), queued → taken, taken →
     * container created (reading the commit again, the workflow, the image check), created → started
     * (the engine), started → the first step's command (layout, checkout and step uploads, exec).
     */
    record Sample(long pollMs, long takeMs, long createMs, long engineMs, long stepMs, long totalMs) {
        static Sample of(long totalMs) {
            return new Sample(0, 0, 0, 0, 0, totalMs);
        }
    }

    /** What one daemon's pushes measured. */
    record Trial(String label, List<Sample> samples, int colds, boolean ok) {}

    public static void main(String[] args) throws Exception {
        int pushes = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        String poll = args.length > 1 ? args[1] : "200ms";
        // "warm": the daemon keeps a container started ahead per image (default flags on docker,
        // --warm-containers on kubernetes; without "warm", --no-warm-containers); a run's container is
        // then renamed, not created and started, so there is no engine part to time.
        List<String> modes = args.length > 2 ? List.of(args).subList(2, args.length) : List.of();
        boolean warm = modes.contains("warm");
        // "idle" (with warm): each push waits until the pool holds its next container, as when pushes
        // come seconds apart; without it the pool is still refilling while the next push is planned.
        boolean idle = warm && modes.contains("idle");
        // "hook": the same pushes twice, first found by polling every POLL_INTERVAL, then by a daemon
        // that polls hourly and is told of each push through POST /hooks/git, as a post-receive hook does
        // (with "warm", both daemons keep warm containers).
        boolean hook = modes.contains("hook");
        // "kubernetes" (with "warm": warm pods) on the test cluster
        Cluster cluster = modes.contains("kubernetes") ? Cluster.create() : null;
        Path root = Path.of("").toAbsolutePath();
        Path tmp = Files.createTempDirectory("daemon-latency");
        List<Trial> trials = new ArrayList<>();
        List<Long> docker = new ArrayList<>();
        try {
            trials.add(trial(root, tmp.resolve("poll"), pushes, poll, warm, idle, false, cluster));
            if (hook) {
                trials.add(trial(root, tmp.resolve("hook"), pushes, "1h", warm, idle, true, null));
            }
            for (int i = 0; i < Math.max(5, Math.min(pushes, 15)); i++) {
                long t0 = System.nanoTime();
                List<String> raw = cluster == null ? List.of("docker", "run", "--rm", ExecIT.IMAGE, "true")
                        : cluster.kubectl("run", "latency-raw-" + i, "--image=" + ExecIT.IMAGE, "--image-pull-policy=Never",
                                "--restart=Never", "--rm", "-i", "--quiet", "--command", "--", "true");
                Process p = new ProcessBuilder(raw).redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes());
                if (p.waitFor() != 0) {
                    throw new IOException(String.join(" ", raw.subList(0, 2)) + " failed: " + out);
                }
                docker.add((System.nanoTime() - t0) / 1_000_000);
            }
        } finally {
            if (cluster != null) {
                cluster.delete();
            }
        }
        String rawLabel = cluster == null ? "docker run --rm IMAGE true" : "kubectl run --rm -i IMAGE -- true";

        boolean ok = true;
        for (Trial trial : trials) {
            List<Sample> samples = trial.samples();
            System.out.printf("%n%s%n%-30s %8s %8s %8s %8s%n", trial.label(), "", "median", "p90", "max", "min");
            row("push -> queued (" + (trial.label().startsWith("hook") ? "hook" : "poll wait") + ")", samples, Sample::pollMs);
            row("queued -> taken", samples, Sample::takeMs);
            row("taken -> container created", samples, Sample::createMs);
            row("created -> started", samples, Sample::engineMs);
            row("started -> first step", samples, Sample::stepMs);
            row("push -> first step", samples, Sample::totalMs);
            row(rawLabel, docker.stream().map(Sample::of).toList(), Sample::totalMs);
            if (warm) {
                System.out.printf("%nruns that found no warm container ready: %d of %d%n", trial.colds(), samples.size());
            }
            ok &= trial.ok();
        }
        long dockerMedian = percentile(docker, 50);
        if (hook) {
            System.out.printf("%n%-44s %8s %8s %10s%n", "push -> first step, side by side", "median", "p90", "x docker");
            for (Trial trial : trials) {
                List<Long> totals = trial.samples().stream().map(Sample::totalMs).toList();
                System.out.printf("%-44s %5d ms %5d ms %9.2fx%n", trial.label(), percentile(totals, 50), percentile(totals, 90),
                        (double) percentile(totals, 50) / dockerMedian);
            }
            System.out.printf("%-44s %5d ms %5d ms %9.2fx%n", "docker run --rm IMAGE true", dockerMedian, percentile(docker, 90), 1.0);
        }
        long median = percentile(trials.getLast().samples().stream().map(Sample::totalMs).toList(), 50);
        long goal = cluster == null ? 1000 : 2000;
        System.out.printf("%nmedian push -> first step %d ms = %.2fx %s (%d ms); goal < %d ms: %s%n", median,
                (double) median / dockerMedian, rawLabel, dockerMedian, goal, median < goal ? "PASS" : "FAIL");
        System.out.println();
        for (Trial trial : trials) {
            if (!trial.ok() || trial.samples().isEmpty()) {
                continue; // a trial that failed measured nothing to keep
            }
            // The key names what was measured: the executor, the pool (and whether each push waited for it), how the push was found.
            String key = "daemon-latency." + (cluster == null ? "docker" : "kubernetes") + "." + (warm ? (idle ? "warm-idle" : "warm") : "cold")
                    + "." + (trial.label().startsWith("hook") ? "hook" : "poll-" + poll);
            List<Long> totals = trial.samples().stream().map(Sample::totalMs).toList();
            long p50 = percentile(totals, 50);
            Figures.report(key, Figures.millis(p50), String.format(Locale.ROOT, "median of %d; p90 %,d ms; %s %,d ms (%.2f×)%s",
                    totals.size(), percentile(totals, 90), rawLabel, dockerMedian, (double) p50 / dockerMedian,
                    warm ? "; " + trial.colds() + " found no warm one ready" : ""));
        }
        if (ok) {
            DaemonSoak.delete(tmp);
        } else {
            System.out.println("something failed; kept for a look: " + tmp);
        }
        System.exit(ok ? 0 : 1);
    }

    /** One daemon, {@code pushes} pushes one after another (after the warm-up ones), each timed. */
    static Trial trial(Path root, Path tmp, int pushes, String poll, boolean warm, boolean idle, boolean hook, Cluster cluster)
            throws Exception {
        Path state = tmp.resolve("state");
        String runnerId = "latency-" + UUID.randomUUID().toString().substring(0, 8);
        Upstream upstream = Upstream.create(tmp.resolve("repo"), "latency/app", Map.of("ci.yaml",
                "image: " + ExecIT.IMAGE + "\non: push\nsteps:\n  - name: first\n    run: cat /proc/uptime\n"), state, runnerId);

        List<Sample> samples = new ArrayList<>();
        int colds = 0;
        java.util.Set<String> jobsSeen = new java.util.HashSet<>();
        boolean ok = true;
        ContainerEvents events = ContainerEvents.follow(runnerId);
        List<String> flags = new ArrayList<>(List.of("--state-dir", state.toString(),
                "--runner-id", runnerId, "--discover", "--concurrency", "1", "--poll-interval", poll, "--image", ExecIT.IMAGE));
        if (!warm) {
            flags.add("--no-warm-containers");
        } else if (cluster != null) {
            flags.add("--warm-containers"); // on docker the daemon keeps warm containers with default flags
        }
        if (cluster != null) {
            flags.addAll(List.of("--executor", "kubernetes", "--kubeconfig", cluster.kubeconfig(), "--namespace", cluster.namespace(),
                    "--pending-timeout", "60s"));
            flags.addAll(ClusterNamespace.UNENFORCED_POLICY_ACCEPTED);
        }
        String token = null;
        if (hook) {
            token = dev.knotless.http.ApiToken.newToken(new java.security.SecureRandom());
            Path tokens = tmp.resolve("api-tokens");
            Files.writeString(tokens, new dev.knotless.http.ApiToken("post-receive", dev.knotless.http.ApiToken.Scope.ADMIN,
                    dev.knotless.http.ApiToken.hash(token)).fileLine() + "\n");
            flags.addAll(List.of("--listen", "127.0.0.1:0", "--api-token-file", tokens.toString()));
        }
        String label = (hook ? "hook (POST /hooks/git after the push; poll 1h)" : "poll every " + poll) + (warm ? ", warm" : "")
                + (cluster != null ? ", kubernetes" : "");
        try (DaemonProcess daemon = DaemonProcess.start(root, tmp.resolve("daemon.log"), flags)) {
            daemon.await("the baseline", DaemonProcess.STARTS, () -> upstream.baselined(state));
            Hook caller = hook ? Hook.of(daemon, token) : null;
            System.out.printf("%s: daemon pid %d, --poll-interval %s%s, %d pushes after %d warm-up%n%n", label, daemon.pid(), poll,
                    warm ? (cluster != null ? ", --warm-containers" : ", default flags (warm containers)") + (idle ? ", each push once the pool is refilled" : "") : "", pushes, WARM_UP);
            System.out.printf("%4s %13s %14s %14s %16s %17s %12s%n", "#", "push->queued", "queued->taken", "taken->created",
                    "created->started", "started->1st step", "total");
            for (int i = 1 - WARM_UP; i <= pushes; i++) {
                if (idle && i > 1 - WARM_UP) { // the pool makes its first container when the first run ends
                    if (cluster != null) {
                        cluster.awaitWarm(Duration.ofSeconds(120));
                    } else {
                        awaitWarm(runnerId, Duration.ofSeconds(60));
                    }
                }
                String sha = upstream.commitOnMain("push " + i);
                upstream.push(List.of("main"));
                double pushedUptime = uptime();
                Instant pushedAt = Instant.now();
                if (caller != null) {
                    caller.call("latency/app");
                }
                RunRecord run = awaitFinal(state, daemon, sha);
                Matcher m = UPTIME.matcher(Files.readString(Path.of(run.check().log())));
                if (!run.status().isFinal() || !m.find()) {
                    System.out.println("run " + run.id() + " " + run.status().wireName() + ": " + run.reason());
                    ok = false;
                    continue;
                }
                long totalMs = Math.round((Double.parseDouble(m.group(1)) - pushedUptime) * 1000);
                long pollMs = Duration.between(pushedAt, run.createdAt()).toMillis();
                long takeMs = Duration.between(run.createdAt(), run.startedAt()).toMillis();
                long createMs = 0;
                long engineMs = 0;
                if (!warm && cluster == null) {
                    String container = "knotless-" + run.id();
                    Instant created = events.await(container, "create");
                    Instant started = events.await(container, "start");
                    createMs = Duration.between(run.startedAt(), created).toMillis();
                    engineMs = Duration.between(created, started).toMillis();
                }
                Sample s = new Sample(pollMs, takeMs, createMs, engineMs, totalMs - pollMs - takeMs - createMs - engineMs, totalMs);
                // With the pool, a run whose container the engine created found no warm one ready (the
                // pool was still refilling): its first step includes a create and start.
                boolean cold = warm && (cluster != null ? cluster.coldJobsSince(jobsSeen)
                        : events.seen("knotless-" + run.id(), "create"));
                System.out.printf("%4s %10d ms %11d ms %11d ms %13d ms %14d ms %9d ms%s%n", i <= 0 ? "w" + (i + WARM_UP) : i,
                        s.pollMs(), s.takeMs(), s.createMs(), s.engineMs(), s.stepMs(), s.totalMs(),
                        cold ? "  (no warm container ready)" : "");
                if (cold && i > 0) {
                    colds++;
                }
                if (i > 0) {
                    samples.add(s);
                }
                Thread.sleep(137); // off the poll's beat, so the poll wait is spread over the interval
            }
            ok &= daemon.stop(Duration.ofSeconds(60)) == 0;
            ok &= cluster != null ? cluster.empty() : Docker.containersOf(runnerId).isEmpty();
            // With KNOTLESS_LOG=debug the daemon's log times each git process and Engine call.
            String keepLog = System.getenv("DAEMON_LATENCY_LOG");
            if (keepLog != null && !keepLog.isBlank()) {
                Files.copy(daemon.log, Path.of(keepLog + (hook ? ".hook" : "")), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            events.close();
        }
        return new Trial(label, samples, colds, ok);
    }

    /** A namespace of the benchmark's own on the test cluster, used with the admin kubeconfig. */
    record Cluster(String kubeconfig, String namespace) {
        static Cluster create() throws Exception {
            Cluster c = new Cluster(TestCluster.adminKubeconfig(), "latency-" + UUID.randomUUID().toString().substring(0, 8));
            c.run("create", "namespace", c.namespace);
            return c;
        }

        List<String> kubectl(String... args) {
            List<String> command = new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig, "-n", namespace));
            command.addAll(List.of(args));
            return command;
        }

        String run(String... args) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(kubectl(args)).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new IOException("kubectl " + String.join(" ", args) + ": " + out);
            }
            return out;
        }

        /** Waits until a warm pod is Ready in the namespace. */
        void awaitWarm(Duration atMost) throws IOException, InterruptedException {
            Instant deadline = Instant.now().plus(atMost);
            while (!run("get", "pods", "-l", "dev.knotless.warm=true",
                    "-o", "jsonpath={.items[*].status.conditions[?(@.type==\"Ready\")].status}").contains("True")) {
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("no warm pod in " + namespace + " within " + atMost);
                }
                Thread.sleep(100);
            }
        }

        /**
         * True when a Job other than a warm one made a pod since the last call (the Job controller's
         * {@code SuccessfulCreate} events name it): a run that found no warm pod made its own.
         */
        boolean coldJobsSince(java.util.Set<String> seen) throws IOException, InterruptedException {
            List<String> jobs = List.of(run("get", "events", "--field-selector", "reason=SuccessfulCreate",
                    "-o", "jsonpath={.items[*].involvedObject.name}").trim().split("\\s+"));
            boolean cold = jobs.stream().anyMatch(j -> !j.isEmpty() && !j.startsWith("knotless-warm-") && !seen.contains(j));
            seen.addAll(jobs);
            return cold;
        }

        /** No pod or Job of the runs is left. */
        boolean empty() throws IOException, InterruptedException {
            return run("get", "pods,jobs", "-o", "name").isBlank();
        }

        void delete() throws IOException, InterruptedException {
            run("delete", "namespace", namespace, "--wait=false");
        }
    }

    /** {@code POST /hooks/git} of the daemon's API, as the post-receive hook in docs/guide/daemon.md sends it. */
    record Hook(java.net.http.HttpClient http, java.net.URI uri, String token) {
        private static final Pattern SERVING = Pattern.compile("status page and API on (http://\\S+?)/?\\s");

        static Hook of(DaemonProcess daemon, String token) throws InterruptedException {
            Matcher[] m = {null};
            daemon.await("the daemon says where it serves", Duration.ofSeconds(30), () -> {
                m[0] = SERVING.matcher(daemon.log());
                return m[0].find();
            });
            return new Hook(java.net.http.HttpClient.newHttpClient(), java.net.URI.create(m[0].group(1) + "/hooks/git"), token);
        }

        void call(String repo) throws IOException, InterruptedException {
            var response = http.send(java.net.http.HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token)
                    .header("Content-Type", "application/json")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("{\"repo\": \"" + repo + "\"}")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 202) {
                throw new IOException("POST /hooks/git: " + response.statusCode() + " " + response.body());
            }
        }
    }

    static RunRecord awaitFinal(Path state, DaemonProcess daemon, String sha) throws Exception {
        Instant deadline = Instant.now().plusSeconds(120);
        while (true) {
            try (StateStore store = StateStore.open(state)) {
                Optional<RunRecord> run = store.runs().runs(new Filter(null, null, 50)).stream()
                        .filter(r -> r.commit().equals(sha) && r.status().isFinal()).findFirst();
                if (run.isPresent()) {
                    return run.get();
                }
            }
            if (Instant.now().isAfter(deadline) || !daemon.process.isAlive()) {
                throw new IllegalStateException("no final run of " + sha + "; the daemon's log:\n" + daemon.log());
            }
            Thread.sleep(20);
        }
    }

    /** Waits until a warm container of the runner waits for a run, and a moment more for its layout. */
    static void awaitWarm(String runnerId, Duration atMost) throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(atMost);
        while (true) {
            if (!Docker.warmContainersOf(runnerId).isEmpty()) {
                Thread.sleep(300);
                return;
            }
            if (Instant.now().isAfter(deadline)) {
                throw new IllegalStateException("no warm container of " + runnerId + " within " + atMost);
            }
            Thread.sleep(100);
        }
    }

    static double uptime() throws IOException {
        return Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
    }

    static void row(String what, List<Sample> samples, ToLongFunction<Sample> f) {
        List<Long> values = samples.stream().map(f::applyAsLong).toList();
        System.out.printf("%-30s %5d ms %5d ms %5d ms %5d ms%n", what, percentile(values, 50), percentile(values, 90),
                percentile(values, 100), percentile(values, 0));
    }

    /** Nearest-rank percentile; p 0 is the minimum. */
    static long percentile(List<Long> values, int p) {
        List<Long> sorted = values.stream().sorted().toList();
        if (sorted.isEmpty()) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.size());
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
    }
}
