package dev.knotless.executor.docker;

import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.testkit.TestImages;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How soon a long step's first line reaches the sink: runs {@code echo started; sleep S} steps,
 * several sessions side by side, and prints for each how long after the step's start the line
 * came. A line later than LATE seconds gets the container's step records and processes printed
 * while the step still runs. Run it on a loaded machine to look for held-back output
 * (executors.md, "What a silent step looks like"); with the classpath bench/docker-bench builds:
 * {@code java -cp … dev.knotless.executor.docker.LiveOutputProbe SESSIONS ROUNDS S LATE [fresh]}.
 * Each round is a new session; {@code fresh} makes the step the container's first exec (as a
 * run's first step is), otherwise a {@code true} step runs before it and the step takes the exec
 * opened ahead.
 */
public final class LiveOutputProbe {

    private LiveOutputProbe() {}

    public static void main(String[] args) throws Exception {
        int sessions = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int sleep = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        int late = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        boolean fresh = args.length > 4 && args[4].equals("fresh");
        String image = TestImages.ensureBuilt();
        DockerExecutor executor = new DockerExecutor();
        String runner = "live-output-probe-" + Long.toHexString(new Random().nextLong()).substring(0, 8);
        List<Thread> threads = new ArrayList<>();
        AtomicLong lateCount = new AtomicLong();
        AtomicLong total = new AtomicLong();
        for (int i = 0; i < sessions; i++) {
            int n = i;
            threads.add(Thread.ofPlatform().name("live-output-probe-" + n).start(() -> {
                for (int round = 0; round < rounds; round++) {
                    int r = round;
                    String runId = runner + "-" + n + (fresh ? "-" + r : "");
                    RunSpec spec = RunSpec.builder(runner, runId, image).build();
                    String container = ContainerConfig.containerName(runId);
                    try (Session s = executor.start(spec, StopSignal.none())) {
                        if (!fresh) {
                            s.run(new StepPayload("true", List.of("true"), Map.of()), OutputSink.DISCARD, StopSignal.none());
                        }
                        StepPayload step = new StepPayload("wait", List.of("/bin/sh", "-c",
                                "echo started; sleep " + sleep + "; echo ended-" + r), Map.of());
                        long t0 = System.nanoTime();
                        AtomicLong first = new AtomicLong();
                        ByteArrayOutputStream out = new ByteArrayOutputStream();
                        Thread watch = Thread.ofVirtual().start(() -> {
                            try {
                                Thread.sleep(late * 1000L);
                            } catch (InterruptedException e) {
                                return;
                            }
                            if (first.get() == 0) {
                                System.out.printf("LATE %s round %d: no first line after %d s%n", container, r, late);
                                System.out.println(cli("docker", "exec", container, "sh", "-c",
                                        "for d in /steps/.exec/*; do echo \"== $d\"; ls -la $d; done; ps -o pid,ppid,stat,args"));
                            }
                        });
                        StepOutcome o = s.run(step, (stream, b, off, len) -> {
                            first.compareAndSet(0, System.nanoTime());
                            synchronized (out) {
                                out.write(b, off, len);
                            }
                        }, StopSignal.none());
                        long end = System.nanoTime();
                        watch.interrupt();
                        long ms = first.get() == 0 ? -1 : (first.get() - t0) / 1_000_000;
                        total.incrementAndGet();
                        if (ms < 0 || ms > late * 1000L) {
                            lateCount.incrementAndGet();
                        }
                        System.out.printf("%s round %d: first line after %d ms, step %d ms, %s, out=%s%n", container, r, ms,
                                (end - t0) / 1_000_000, o, out.toString(StandardCharsets.UTF_8).replace("\n", "\\n"));
                    } catch (Exception e) {
                        e.printStackTrace();
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        executor.sweep(runner, Set.of());
        System.out.printf("DONE %d steps, %d late%n", total.get(), lateCount.get());
    }

    private static String cli(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (Exception e) {
            return e.toString();
        }
    }
}
