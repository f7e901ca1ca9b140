package dev.knotless.node.allocation;

import dev.knotless.executor.ShellPayload;
import dev.knotless.node.agent.AllocationRuntime.RuntimeFailure;
import dev.knotless.node.agent.Attachment;
import dev.knotless.node.agent.MacKey;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.runc.ContainerState;
import dev.knotless.node.runc.ExecShim;
import dev.knotless.node.runc.Runc;
import dev.knotless.node.runc.RuncException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Steps detached from the stream that started them and from the agent: each runs {@link
 * ShellPayload#receiver()} in the allocation's container with the action's payload on stdin,
 * inside a shim of its own ({@link ExecShim}) that writes its output and end to files ({@link
 * StepRun}); whoever sends the same {@code run_step} follows it from any offset, and an agent
 * restarted meanwhile finds the shim running or the step ended.
 */
final class Steps {

    private static final Logger LOG = LoggerFactory.getLogger(Steps.class);
    private static final Duration NODE_STEP_GRACE = Duration.ofSeconds(5);
    /** How often a running step's files are looked at: output reaches followers at most this late. */
    private static final Duration WATCH = Duration.ofMillis(50);
    /** How long a deletion waits for the shims of a container it has just removed to record their end. */
    private static final Duration SHIMS_END = Duration.ofSeconds(10);
    static final String PAYLOAD_KEY = "payload.key";

    private final Runc runc;
    private final Bundles bundles;
    private final AllocationStore store;
    private final Map<String, StepRun> steps = new ConcurrentHashMap<>();

    Steps(Runc runc, Bundles bundles, AllocationStore store) {
        this.runc = runc;
        this.bundles = bundles;
        this.store = store;
    }

    /** Starts the step, or attaches to the one that runs (or ran), and follows it to its end. */
    Result.StepExited run(Action.RunStep a, Attachment.StepOutput output) throws RuntimeFailure {
        String id = a.allocation();
        byte[] payload = a.payload();
        StepRun run;
        MacKey key;
        try {
            store.require(id);
            key = payloadKey(id);
            run = stepRun(a, payload, key);
        } catch (IOException e) {
            throw new RuntimeFailure("step " + a.step() + " of " + id + ": " + e.getMessage(), e);
        }
        if (!run.startedWith(payload, key)) {
            throw new RuntimeFailure("step " + a.step() + " of " + id + " was started with another payload; refused");
        }
        StepRun.Followed followed;
        try {
            followed = run.follow(a.stdoutFrom(), a.stderrFrom(), output);
        } catch (IOException e) {
            throw new RuntimeFailure("stopped following step " + a.step() + " of " + id + " (it runs on): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeFailure("following step " + a.step() + " interrupted (it runs on)");
        }
        return switch (followed.end()) {
            case StepRun.End.Exited e -> new Result.StepExited(id, a.step(), e.exitCode(), e.durationMs(),
                    followed.stdoutBytes(), followed.stderrBytes());
            case StepRun.End.Broken b -> throw new RuntimeFailure("step " + a.step() + " of " + id + ": " + b.reason());
        };
    }

    /** TERM to every process of the allocation but PID 1, then KILL to what is left after the grace. */
    void stop(String id, Duration grace) throws RuncException, IOException, InterruptedException {
        Optional<ContainerState> state = runc.state(id);
        if (state.isEmpty() || state.get().status() == ContainerState.Status.STOPPED) {
            return;
        }
        long init = state.get().pid();
        List<ProcessHandle> term = handles(runc.processes(id), init);
        term.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        while (term.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        // Listed again: a step may have forked between the list and the TERM.
        for (int round = 0; round < 3; round++) {
            List<ProcessHandle> left = handles(runc.processes(id), init);
            if (left.isEmpty()) {
                return;
            }
            left.forEach(ProcessHandle::destroyForcibly);
            Thread.sleep(20);
        }
    }

    /**
     * Forgets the allocation's steps (it is being deleted, its container already removed), once
     * their shims have ended, so none writes into a directory being deleted.
     */
    void forget(String id) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + SHIMS_END.toNanos();
        Path outputs = store.dir(id).resolve("step-output");
        if (Files.isDirectory(outputs)) {
            try (var dirs = Files.list(outputs)) {
                for (Path dir : dirs.toList()) {
                    awaitEnd(ShimProcess.live(new ExecShim.StepFiles(dir)), steps.get(id + "/" + dir.getFileName()), deadline);
                }
            }
        }
        steps.keySet().removeIf(k -> k.startsWith(id + "/"));
    }

    /** Until the shim has ended and, for a step this agent watches, its end is settled. */
    private static void awaitEnd(Optional<ShimProcess> shim, @Nullable StepRun run, long deadline) throws InterruptedException {
        boolean ended = shim.isEmpty();
        while (!ended && System.nanoTime() < deadline) {
            ended = shim.get().awaitExit(WATCH);
        }
        while (run != null && !run.ended() && System.nanoTime() < deadline) {
            Thread.sleep(WATCH);
        }
    }

    /**
     * The allocation's own key for its steps' payloads: in its directory, so a step resent after an
     * agent restart is still recognised, and deleted with it.
     */
    private MacKey payloadKey(String id) throws IOException {
        synchronized (steps) {
            return MacKey.loadOrCreate(store.dir(id).resolve(PAYLOAD_KEY));
        }
    }

    private StepRun stepRun(Action.RunStep a, byte[] payload, MacKey payloadKey) throws IOException, RuntimeFailure {
        String key = a.allocation() + "/" + a.step();
        synchronized (steps) {
            StepRun run = steps.get(key);
            Path dir = store.stepOutput(a.allocation(), a.step());
            if (run == null) {
                run = StepRun.load(dir).orElse(null);
                if (run != null && !run.ended()) {
                    resume(a, run);
                }
            }
            if (run == null) {
                run = StepRun.create(dir, payload, payloadKey);
                launch(a, payload, run);
            }
            steps.put(key, run);
            return run;
        }
    }

    private void launch(Action.RunStep a, byte[] payload, StepRun run) throws RuntimeFailure {
        byte[] process = bundles.exec(a.allocation(), ShellPayload.receiver());
        Process shim;
        try {
            shim = runc.shim().start(a.allocation(), run.files(), process);
        } catch (RuncException | IOException e) {
            run.finish(new StepRun.End.Broken(String.valueOf(e.getMessage())));
            return;
        }
        Thread.ofVirtual().name("step-" + a.allocation() + "-" + a.step() + "-stdin").start(() -> {
            try (OutputStream stdin = shim.getOutputStream()) {
                stdin.write(payload);
            } catch (IOException e) {
                // the step ended before it read all of its payload
            }
        });
        Thread.ofVirtual().name("step-" + a.allocation() + "-" + a.step()).start(() -> watch(a, run, ShimProcess.child(shim)));
    }

    /** A step an earlier agent started: its shim is watched again, or the step settled if the shim is gone. */
    private void resume(Action.RunStep a, StepRun run) throws IOException {
        Optional<ShimProcess> shim = ShimProcess.live(run.files());
        if (shim.isEmpty()) {
            settle(a.allocation(), run, true);
            return;
        }
        LOG.info("allocation={} step={} shim={} still runs; following it again", a.allocation(), a.step(), shim.get().pid());
        Thread.ofVirtual().name("step-" + a.allocation() + "-" + a.step()).start(() -> watch(a, run, shim.get()));
    }

    /**
     * Publishes the step's output as it grows until its shim ends, then how the step ended; stops
     * the step at its deadline meanwhile.
     */
    private void watch(Action.RunStep a, StepRun run, ShimProcess shim) {
        Thread watchdog = Thread.ofVirtual().start(() -> stopAtDeadline(a, run));
        try {
            boolean gone;
            do {
                gone = shim.awaitExit(WATCH);
                run.grew();
            } while (!settle(a.allocation(), run, gone));
        } catch (IOException e) {
            run.finish(new StepRun.End.Broken("the node lost the step's files: " + e.getMessage()));
        } catch (InterruptedException e) {
            run.finish(new StepRun.End.Broken("the node stopped the step"));
        } finally {
            watchdog.interrupt();
        }
    }

    /**
     * Ends the step as its shim recorded, runc's own failure (from runc's log) before the exit
     * code; or, if the shim is gone without a record, with the reason. Whether the step ended.
     */
    private boolean settle(String id, StepRun run, boolean shimGone) throws IOException {
        ExecShim.StepFiles files = run.files();
        Optional<Integer> code = run.shimExit();
        if (code.isPresent()) {
            try {
                runc.checkExec(id, files.runcLog());
                run.finish(new StepRun.End.Exited(code.get(), run.durationMs()));
            } catch (RuncException e) {
                run.finish(new StepRun.End.Broken(e.getMessage()));
            }
            Files.deleteIfExists(files.process());
            Files.deleteIfExists(files.runcLog());
            return true;
        }
        if (!shimGone) {
            return false;
        }
        String said = Files.isRegularFile(files.errors()) ? Files.readString(files.errors()).strip() : "";
        run.finish(new StepRun.End.Broken("the step's shim on the node ended without recording the step's end"
                + (said.isEmpty() ? " (killed)" : ": " + said.lines().reduce((first, last) -> last).orElse(said))));
        return true;
    }

    /**
     * The runner stops steps at their deadline; this is the node's own backstop if it cannot,
     * counted from the step's start, in an agent restarted since too.
     */
    private void stopAtDeadline(Action.RunStep a, StepRun run) {
        try {
            Thread.sleep(Math.max(0, a.timeoutMs() - run.ageMs()));
            if (!run.ended()) {
                LOG.warn("allocation={} step={} passed its deadline of {} ms; stopping it", a.allocation(), a.step(), a.timeoutMs());
                stop(a.allocation(), NODE_STEP_GRACE);
            }
        } catch (InterruptedException e) {
            // the step ended first
        } catch (Exception e) {
            LOG.warn("allocation={} step={} could not be stopped: {}", a.allocation(), a.step(), e.getMessage());
        }
    }

    private static List<ProcessHandle> handles(List<Long> pids, long init) {
        List<ProcessHandle> handles = new ArrayList<>();
        for (long pid : pids) {
            if (pid != init) {
                ProcessHandle.of(pid).ifPresent(handles::add);
            }
        }
        return handles;
    }
}
