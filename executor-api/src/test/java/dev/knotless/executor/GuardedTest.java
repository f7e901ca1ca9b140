package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The guard's rules on a small scripted session: what reaches the executor's session, and what the caller gets. */
class GuardedTest {

    private static final StepPayload STEP = new StepPayload("build", List.of("/bin/sh", "-c", "true"), Map.of());

    private final ScriptedSession inner = new ScriptedSession();
    private final ScriptedExecutor executor = new ScriptedExecutor(inner);
    private final Executor guarded = Guarded.executor(executor);

    @Test
    void aClosedSessionRunsAndTransfersNothing() throws Exception {
        Session s = start();
        s.close();

        assertThat(s.run(STEP, OutputSink.DISCARD, StopSignal.none())).isInstanceOfSatisfying(StepOutcome.Failed.class, f -> {
            assertThat(f.failure().kind()).isEqualTo(Failure.Kind.INFRASTRUCTURE);
            assertThat(f.failure().reason()).isEqualTo("step 'build' cannot run: the session is closed");
        });
        assertThatThrownBy(() -> s.upload("/work", out -> {}, StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.INFRASTRUCTURE);
                    assertThat(e.failure().reason()).isEqualTo("upload to /work failed: the session is closed");
                });
        assertThatThrownBy(() -> s.download("/outputs", in -> {}, StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class,
                        e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.INFRASTRUCTURE));
        assertThat(inner.calls).containsExactly("close");
    }

    @Test
    void aSignalThatAlreadyFiredStopsTheStartTheStepAndTheTransfersBeforeTheyBegin() throws Exception {
        StopSignal fired = new StopSignal();
        fired.stop(StopSignal.Reason.TIMEOUT);
        assertThatThrownBy(() -> guarded.start(spec(), fired)).isInstanceOfSatisfying(ExecutorException.class, e -> {
            assertThat(e.failure().kind()).isEqualTo(Failure.Kind.STOPPED);
            assertThat(e.failure().reason()).isEqualTo("start of run r1 stopped (timeout)");
        });
        assertThat(executor.starts).isZero();

        Session s = start();
        assertThat(s.run(STEP, OutputSink.DISCARD, fired)).isEqualTo(new StepOutcome.TimedOut());
        assertThatThrownBy(() -> s.upload("/work", out -> {}, fired)).isInstanceOfSatisfying(ExecutorException.class, e -> {
            assertThat(e.failure().kind()).isEqualTo(Failure.Kind.STOPPED);
            assertThat(e.failure().reason()).isEqualTo("upload to /work stopped (timeout)");
        });
        assertThatThrownBy(() -> s.download("/outputs", in -> {}, fired)).isInstanceOfSatisfying(ExecutorException.class,
                e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.STOPPED));
        assertThat(inner.calls).isEmpty();
    }

    @Test
    void variablesLinuxCannotCarryFailTheStepAsLimitWithoutTheirValue() throws Exception {
        String value = "x".repeat(Environment.MAX_ENTRY);
        StepOutcome outcome = start().run(new StepPayload("big", List.of("/bin/sh"), Map.of("HUGE", value)),
                OutputSink.DISCARD, StopSignal.none());
        assertThat(outcome).isInstanceOfSatisfying(StepOutcome.Failed.class, f -> {
            assertThat(f.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
            assertThat(f.failure().reason()).contains("HUGE").doesNotContain("xxxxxxxx");
        });
        assertThat(inner.calls).isEmpty();
    }

    @Test
    void aTransferDirectoryReachesTheSessionPlainAndABadOneIsLimit() throws Exception {
        Session s = start();
        s.upload("//work/./sub/", out -> {}, StopSignal.none());
        s.download("/outputs/", in -> {}, StopSignal.none());
        assertThat(inner.calls).containsExactly("upload /work/sub", "download /outputs");

        for (String bad : List.of("work", "/work/../etc")) {
            assertThatThrownBy(() -> s.upload(bad, out -> {}, StopSignal.none()))
                    .as(bad).isInstanceOfSatisfying(ExecutorException.class, e -> {
                        assertThat(e.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
                        assertThat(e.failure().reason()).startsWith("upload to " + bad + " refused: ");
                    });
            assertThatThrownBy(() -> s.download(bad, in -> {}, StopSignal.none()))
                    .as(bad).isInstanceOfSatisfying(ExecutorException.class,
                            e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.LIMIT));
        }
        assertThat(inner.calls).hasSize(2);
    }

    @Test
    void aFailingSinkStopsTheStepThroughItsSignalAndIsPassedOnOnceTheStepHasEnded() throws Exception {
        Session s = start();
        RuntimeException full = new IllegalStateException("log store full");
        List<String> written = new ArrayList<>();
        OutputSink failing = (stream, buffer, offset, length) -> {
            written.add(new String(buffer, offset, length, StandardCharsets.UTF_8));
            throw full;
        };
        StopSignal run = new StopSignal();

        assertThatThrownBy(() -> s.run(STEP, failing, run)).isSameAs(full);

        assertThat(inner.stoppedWith).containsExactly(StopSignal.Reason.CANCELLED);
        assertThat(inner.calls).containsExactly("run build", "run build returned");
        assertThat(written).containsExactly("first");
        assertThat(run.isStopped()).as("the caller's signal is not the one fired").isFalse();
    }

    @Test
    void theStepSignalStopsWithTheCallersAndIsDetachedAfterTheStep() throws Exception {
        Session s = start();
        StopSignal run = new StopSignal();
        inner.onRun = signal -> {
            run.stop(StopSignal.Reason.CANCELLED);
            return signal.isStopped() ? new StepOutcome.Cancelled() : new StepOutcome.Exited(0);
        };
        assertThat(s.run(STEP, OutputSink.DISCARD, run)).isEqualTo(new StepOutcome.Cancelled());
    }

    @Test
    void closeReachesTheSessionOnce() throws Exception {
        Session s = start();
        s.close();
        s.close();
        assertThat(inner.calls).containsExactly("close");
    }

    @Test
    void aResumedSessionsFollowIsGuardedLikeRun() throws Exception {
        Resumption resumption = guarded.resumption().orElseThrow();
        ResumedSession s = resumption.resume(spec()).orElseThrow();
        assertThat(s).isNotSameAs(inner);

        StopSignal fired = new StopSignal();
        fired.stop(StopSignal.Reason.CANCELLED);
        assertThat(s.follow(STEP, 0, 0, OutputSink.DISCARD, fired)).contains(new StepOutcome.Cancelled());
        assertThat(s.follow(new StepPayload("bad", List.of("/bin/sh"), Map.of("1BAD", "")), 0, 0, OutputSink.DISCARD,
                StopSignal.none())).hasValueSatisfying(o -> assertThat(o).isInstanceOf(StepOutcome.Failed.class));
        assertThat(inner.calls).isEmpty();

        RuntimeException full = new IllegalStateException("log store full");
        assertThatThrownBy(() -> s.follow(STEP, 10, 0, (stream, b, o, l) -> {
            throw full;
        }, StopSignal.none())).isSameAs(full);
        assertThat(inner.stoppedWith).containsExactly(StopSignal.Reason.CANCELLED);
        assertThat(inner.calls).containsExactly("follow build from 10/0", "follow build returned");

        s.close();
        s.close();
        assertThat(s.follow(STEP, 0, 0, OutputSink.DISCARD, StopSignal.none()))
                .hasValueSatisfying(o -> assertThat(o).isInstanceOf(StepOutcome.Failed.class));
        assertThat(inner.calls).containsOnlyOnce("close");
    }

    @Test
    void anExecutorIsGuardedOnceAndPassesTheRestOn() {
        assertThat(Guarded.executor(guarded)).isSameAs(guarded);
        assertThat(guarded.name()).isEqualTo("scripted");
        assertThat(guarded.sweep("runner", Set.of())).isEqualTo(new SweepReport(List.of("swept runner"), List.of()));
        assertThat(Guarded.executor(new ScriptedExecutor(inner) {
            @Override
            public Optional<Resumption> resumption() {
                return Optional.empty();
            }
        }).resumption()).isEmpty();
    }

    private Session start() throws ExecutorException {
        return guarded.start(spec(), StopSignal.none());
    }

    private static RunSpec spec() {
        return RunSpec.builder("runner", "r1", "image").build();
    }

    /** Records what reaches it; a step writes "first", then waits for its signal (at most 5 s). */
    private static final class ScriptedSession implements ResumedSession {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final List<StopSignal.Reason> stoppedWith = new CopyOnWriteArrayList<>();
        java.util.function.Function<StopSignal, StepOutcome> onRun;

        @Override
        public void upload(String dir, TarSource tar, StopSignal signal) {
            calls.add("upload " + dir);
        }

        @Override
        public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
            if (onRun != null) {
                return onRun.apply(signal);
            }
            calls.add("run " + step.name());
            StepOutcome outcome = writeAndWait(output, signal);
            calls.add("run " + step.name() + " returned");
            return outcome;
        }

        @Override
        public Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output,
                StopSignal signal) {
            calls.add("follow " + step.name() + " from " + stdoutFrom + "/" + stderrFrom);
            StepOutcome outcome = writeAndWait(output, signal);
            calls.add("follow " + step.name() + " returned");
            return Optional.of(outcome);
        }

        private StepOutcome writeAndWait(OutputSink output, StopSignal signal) {
            signal.onStop(stoppedWith::add);
            byte[] first = "first".getBytes(StandardCharsets.UTF_8);
            output.write(OutputSink.Stream.STDOUT, first, 0, first.length);
            byte[] second = "second".getBytes(StandardCharsets.UTF_8);
            output.write(OutputSink.Stream.STDOUT, second, 0, second.length);
            // The failing write stops the signal before it returns; the ceiling only catches a hang.
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!signal.isStopped()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("the step's signal was not stopped 30 s after its output failed");
                }
                Thread.onSpinWait();
            }
            return signal.reason().map(StepOutcome::stopped).orElseThrow();
        }

        @Override
        public void download(String dir, TarSink sink, StopSignal signal) {
            calls.add("download " + dir);
        }

        @Override
        public String describe() {
            return "scripted";
        }

        @Override
        public void close() {
            calls.add("close");
        }
    }

    private static class ScriptedExecutor implements Executor {
        private final ScriptedSession session;
        int starts;

        ScriptedExecutor(ScriptedSession session) {
            this.session = session;
        }

        @Override
        public String name() {
            return "scripted";
        }

        @Override
        public UntrustedNetwork untrustedNetwork() {
            return UntrustedNetwork.NO_INTERFACE;
        }

        @Override
        public Session start(RunSpec spec, StopSignal signal) {
            starts++;
            return session;
        }

        @Override
        public Optional<Resumption> resumption() {
            return Optional.of(spec -> Optional.of(session));
        }

        @Override
        public SweepReport sweep(String runnerId, Set<String> goingRuns) {
            return new SweepReport(List.of("swept " + runnerId), List.of());
        }
    }
}
