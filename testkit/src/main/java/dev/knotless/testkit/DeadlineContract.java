package dev.knotless.testkit;

import static dev.knotless.testkit.ContractSupport.sh;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StopSignal;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The run's deadline ({@link RunSpec#timeout()}) on every executor: with the runner there, a step
 * that outlives the run's deadline is stopped at it and nothing is left once the session closes;
 * with the runner gone (killed at the deadline, so nobody stops or closes anything), the executor
 * ends the environment by its own deadline when it has one (the Kubernetes Job's {@code
 * activeDeadlineSeconds}, the node agent's allocation deadline), and the restarted runner's sweep
 * removes what is left in any case. Part of {@link ExecutorContract}, which every executor's
 * integration test extends; the measured times are printed for docs/design/runs.md.
 */
public interface DeadlineContract {

    /** The run's deadline in these scenarios: a few seconds, longer than a start takes. */
    Duration DEADLINE = Duration.ofSeconds(6);

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    @Test
    default void aStepOutlivingTheRunsDeadlineIsTimedOutAtItAndNothingIsLeft() throws Exception {
        long started = System.nanoTime();
        // as the runner does: the run's signal stops at the deadline; the step has no timeout of its own
        try (StopSignal run = StopSignal.none().child(DEADLINE)) {
            Session s = contract().open(contract().spec().timeout(DEADLINE).build());
            StepOutcome outcome;
            try (StopSignal step = run.child()) {
                outcome = s.run(sh("outlives the run", "sleep 603"), new RecordingOutput(), step);
            }
            Duration ended = Duration.ofNanos(System.nanoTime() - started);
            s.close();
            Duration gone = Duration.ofNanos(System.nanoTime() - started);
            System.out.printf("%s: the step ended %d ms past the run's deadline, the environment was gone %d ms past it%n",
                    contract().executor().name(), ended.minus(DEADLINE).toMillis(), gone.minus(DEADLINE).toMillis());
            assertThat(outcome).isEqualTo(new StepOutcome.TimedOut());
            // At the deadline, not before; the ceiling only tells a stopped step from its 10-minute sleep.
            assertThat(ended).isGreaterThanOrEqualTo(DEADLINE).isLessThan(StopContract.STOPPED_WITHIN);
            assertThat(contract().leftovers()).isEmpty();
        }
    }

    @Test
    default void aRunWhoseRunnerIsGoneEndsByTheExecutorsOwnDeadlineOrTheRestartsSweep() throws Exception {
        long started = System.nanoTime();
        // not one of the sessions the test closes: the runner that started it is gone
        Session abandoned = contract().executor().start(contract().spec().timeout(DEADLINE).build(), StopSignal.none());
        try {
            assertThat(abandoned.run(sh("leaves a process", "sleep 604 > /dev/null 2>&1 &"), new RecordingOutput(),
                    StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
            Optional<Duration> within = contract().abandonment().endsWithin();
            if (within.isPresent()) {
                // A wait for the executor's own end, with two minutes past its promise to catch only a
                // hang: the process would sleep 10 minutes, so ending under that is the executor's doing.
                Duration limit = DEADLINE.plus(within.get()).plus(Duration.ofMinutes(2));
                List<String> running = contract().abandonment().stillRunning(contract().runnerId());
                while (!running.isEmpty() && Duration.ofNanos(System.nanoTime() - started).compareTo(limit) < 0) {
                    Thread.sleep(250);
                    running = contract().abandonment().stillRunning(contract().runnerId());
                }
                Duration ended = Duration.ofNanos(System.nanoTime() - started);
                System.out.printf("%s: with no runner, the run's environment ended %d ms past its deadline%n",
                        contract().executor().name(), ended.minus(DEADLINE).toMillis());
                assertThat(running).as("what still runs %s after the deadline", within.get().plus(Duration.ofMinutes(2))).isEmpty();
                assertThat(ended).as("ended by the executor, not before the deadline").isGreaterThanOrEqualTo(DEADLINE);
            } else {
                Thread.sleep(Math.max(0, DEADLINE.toMillis() - Duration.ofNanos(System.nanoTime() - started).toMillis()));
                assertThat(contract().leftovers()).as("the executor leaves ending it to the runner").isNotEmpty();
            }
            // the restarted runner's sweep: this run is not one it goes on with
            contract().executor().sweep(contract().runnerId(), Set.of());
            System.out.printf("%s: after the restart's sweep, %d ms past the deadline, nothing is left: %s%n",
                    contract().executor().name(), Duration.ofNanos(System.nanoTime() - started).minus(DEADLINE).toMillis(),
                    contract().leftovers().isEmpty());
            assertThat(contract().leftovers()).isEmpty();
        } finally {
            abandoned.close();
        }
    }
}
