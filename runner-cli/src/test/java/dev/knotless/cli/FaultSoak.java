package dev.knotless.cli;

import dev.knotless.checks.CheckStatus;
import dev.knotless.runner.state.RunRecord;
import dev.knotless.testkit.Figures;
import dev.knotless.testkit.PrivateEngine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.stream.Collectors;

/**
 * The soak under faults: RUNS runs queued at once through the real daemon process on a private
 * Docker Engine ({@link PrivateEngine}, so the machine's own engine is never restarted), with the
 * engine restarted twice and the daemon SIGKILLed three times while they go. Prints the runs, the
 * lost (planned, with no final check), the duplicated (started twice, or a step's output twice),
 * the orphans (containers of the runner after the last stop), how the faults ended the runs they
 * caught, and the last daemon's heap after a full GC and its threads. Exit 0 when 0 lost, 0
 * duplicated, 0 orphans. Run by {@code bench/fault-soak [RUNS=500] [CONCURRENCY=8]}; needs root.
 */
public final class FaultSoak {

    static final int WORKFLOWS = 5;

    /** The faults, in order, each when this share of the runs has ended. */
    enum Fault { KILL_DAEMON, RESTART_ENGINE }

    static final List<Map.Entry<Double, Fault>> PLAN = List.of(Map.entry(0.12, Fault.KILL_DAEMON),
            Map.entry(0.28, Fault.RESTART_ENGINE), Map.entry(0.44, Fault.KILL_DAEMON), Map.entry(0.60, Fault.RESTART_ENGINE),
            Map.entry(0.76, Fault.KILL_DAEMON));

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        int concurrency = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        int branches = (runs + WORKFLOWS - 1) / WORKFLOWS;
        Path tmp = Files.createTempDirectory("fault-soak");
        Path state = tmp.resolve("state");
        String runnerId = "fsoak-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, String> workflows = new LinkedHashMap<>();
        for (int w = 1; w <= WORKFLOWS; w++) {
            workflows.put("w" + w + ".yaml", "image: " + ExecIT.IMAGE + "\non: push\nsteps:\n  - name: work\n    run: |\n"
                    + "      echo begin-w" + w + "\n      sleep 1\n      echo end-w" + w + "\n");
        }
        boolean ok;
        try (PrivateEngine engine = PrivateEngine.start(tmp.resolve("engine"), ExecIT.IMAGE)) {
            List<String> daemonArgs = List.of("--state-dir", state.toString(), "--runner-id", runnerId, "--discover",
                    "--concurrency", String.valueOf(concurrency), "--poll-interval", "500ms", "--kill-grace", "2s",
                    "--stop-grace", "10s", "--image", ExecIT.IMAGE, "--docker-socket", engine.socket().toString());
            List<DaemonProcess> daemons = new ArrayList<>();
            Upstream upstream = Upstream.create(tmp.resolve("repo"), "soak/faults", workflows, state, runnerId);
            DaemonProcess daemon = start(tmp, daemonArgs, daemons);
            daemon.await("the baseline", DaemonProcess.STARTS, () -> upstream.baselined(state));
            int expected = branches * WORKFLOWS;
            Map<String, String> made = upstream.branches("soak", branches);
            long pushed = System.nanoTime();
            upstream.push(List.copyOf(made.keySet()));
            System.out.printf("runner %s: %d runs (%d branches x %d workflows), --concurrency %d, on the private engine %s%n",
                    runnerId, expected, branches, WORKFLOWS, concurrency, engine.socket());

            List<Map.Entry<Double, Fault>> plan = new ArrayList<>(PLAN);
            Set<String> caughtByEngine = new HashSet<>();
            long deadline = pushed + Duration.ofMinutes(40).toNanos();
            while (System.nanoTime() < deadline) {
                Thread.sleep(1000);
                List<RunRecord> now = DaemonSoak.runs(state);
                long done = now.stream().filter(r -> r.status().isFinal()).count();
                if (done >= expected) {
                    break;
                }
                if (!plan.isEmpty() && done >= plan.get(0).getKey() * expected) {
                    Fault fault = plan.remove(0).getValue();
                    long running = now.stream().filter(r -> r.status() == CheckStatus.RUNNING).count();
                    System.out.printf("%5.1f s: %d/%d ended, %d running: %s%n", (System.nanoTime() - pushed) / 1e9, done, expected,
                            running, fault);
                    if (fault == Fault.KILL_DAEMON) {
                        daemon.kill();
                        daemon = start(tmp, daemonArgs, daemons);
                    } else {
                        now.stream().filter(r -> r.status() == CheckStatus.RUNNING).map(RunRecord::id).forEach(caughtByEngine::add);
                        long stopping = System.nanoTime();
                        engine.restart();
                        System.out.printf("        the engine was back after %d ms%n", (System.nanoTime() - stopping) / 1_000_000);
                    }
                }
                if (!daemon.process.isAlive()) {
                    System.out.println("the daemon died: " + daemon.log());
                    break;
                }
            }
            double took = (System.nanoTime() - pushed) / 1e9;
            Thread.sleep(DaemonSoak.IDLE.toMillis());
            JvmProbe probe = new JvmProbe(daemon.pid());
            long heap = probe.heapRetainedKb();
            int threads = probe.threads();
            int exit = daemon.stop(Duration.ofSeconds(60));

            List<RunRecord> end = DaemonSoak.runs(state);
            long lost = expected - end.stream().filter(r -> r.status().isFinal()).count();
            String logs = daemons.stream().map(DaemonProcess::log).collect(Collectors.joining("\n"));
            List<String> started = new ArrayList<>();
            Matcher m = DaemonKillIT.STARTED.matcher(logs);
            while (m.find()) {
                started.add(m.group(1));
            }
            long startedTwice = started.size() - started.stream().distinct().count();
            long outputTwice = 0;
            for (RunRecord r : end) {
                Path log = state.resolve("logs").resolve(r.id() + ".log");
                if (Files.exists(log) && Files.readString(log).lines().filter(l -> l.startsWith("end-w")).count() > 1) {
                    outputTwice++;
                }
            }
            List<String> orphans = engine.containers("dev.knotless.runner=" + runnerId);
            Map<String, Long> byOutcome = new TreeMap<>(end.stream().collect(Collectors.groupingBy(
                    r -> r.status().wireName() + (r.status() == CheckStatus.SUCCESS ? "" : ": " + r.reason()), Collectors.counting())));
            System.out.printf("%n%d runs in %.1f s, %d daemon processes, 2 engine restarts%n", end.size(), took, daemons.size());
            byOutcome.forEach((k, v) -> System.out.printf("  %4d %s%n", v, k));
            System.out.printf("runs caught running by an engine restart: %d%n", caughtByEngine.size());
            System.out.printf("lost %d, duplicated %d (started twice %d, output twice %d), orphans %d%n", lost,
                    startedTwice + outputTwice, startedTwice, outputTwice, orphans.size());
            System.out.printf("last daemon after %d s idle: heap after full GC %.1f MiB, threads %d; stopped with %d%n",
                    DaemonSoak.IDLE.toSeconds(), heap / 1024.0, threads, exit);
            ok = lost == 0 && startedTwice == 0 && outputTwice == 0 && orphans.isEmpty() && exit == 0;
            DaemonSoak.verdict(ok, "0 lost, 0 duplicated, 0 orphans");
            Figures.report("fault-soak.lost", lost + " lost, " + (startedTwice + outputTwice) + " duplicated, " + orphans.size() + " orphans",
                    String.format(java.util.Locale.ROOT, "%d runs in %.0f s, %d success; the last daemon: heap %.1f MiB, %d threads", end.size(),
                            took, byOutcome.getOrDefault("success", 0L), heap / 1024.0, threads));
            for (DaemonProcess d : daemons) {
                d.close();
            }
        }
        if (ok) {
            DaemonSoak.delete(tmp);
        } else {
            System.out.println("kept for a look: " + tmp);
        }
        System.exit(ok ? 0 : 1);
    }

    private static DaemonProcess start(Path tmp, List<String> args, List<DaemonProcess> daemons) throws Exception {
        DaemonProcess d = DaemonProcess.start(DaemonProcess.checkout(), tmp.resolve("daemon-" + daemons.size() + ".log"), args);
        daemons.add(d);
        d.await("the daemon watching", Duration.ofMinutes(3), () -> d.log().contains(" watching "));
        return d;
    }
}
