package dev.knotless.testkit;

import static dev.knotless.testkit.ContractSupport.processes;
import static dev.knotless.testkit.ContractSupport.sh;
import static dev.knotless.testkit.ContractSupport.withTwoSecondTimeout;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StopSignal;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The contract's stops: a step past its deadline, one ignoring TERM, and a cancel mid-step end
 * within the kill grace and leave no process behind.
 * Part of {@link ExecutorContract}, which every executor's integration test extends.
 */
public interface StopContract {

    /**
     * The ceiling on a stop: the steps would sleep 10 minutes, so anything under that tells a stopped
     * step from one that ran out; it only catches a stop that never comes (the times are printed).
     */
    Duration STOPPED_WITHIN = Duration.ofMinutes(5);

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    @Test
    default void aStepPastItsTimeoutIsStoppedAndLeavesNoProcess() throws Exception {
        Session s = contract().open();
        ContractSupport.Timed ended = withTwoSecondTimeout(s, sh("hangs", "sleep 600"));
        System.out.printf("%s: a step past its 2 s timeout ended after %d ms%n", contract().executor().name(),
                ended.took().toMillis());
        assertThat(ended.outcome()).isEqualTo(new StepOutcome.TimedOut());
        assertThat(ended.took()).as("stopped, not run out its 10-minute sleep").isLessThan(STOPPED_WITHIN);
        assertThat(processes(s)).doesNotContain("sleep 600");
    }

    @Test
    default void aStepIgnoringTermIsKilledAfterTheGrace() throws Exception {
        Session s = contract().open();
        ContractSupport.Timed ended = withTwoSecondTimeout(s, sh("stubborn", "trap '' TERM; sleep 601; echo survived"));
        System.out.printf("%s: a step ignoring TERM ended %d ms after it was sent (timeout 2 s, kill grace %d ms)%n",
                contract().executor().name(), ended.took().toMillis(), contract().killGrace().toMillis());
        assertThat(ended.outcome()).isEqualTo(new StepOutcome.TimedOut());
        assertThat(ended.took()).as("killed, not run out its 10-minute sleep").isLessThan(STOPPED_WITHIN);
        assertThat(processes(s)).doesNotContain("sleep 601");
        RecordingOutput after = new RecordingOutput();
        assertThat(s.run(sh("still usable", "echo fine"), after, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
        assertThat(after.stdout()).isEqualTo("fine\n");
    }

    @Test
    default void cancellationMidStepReturnsCancelledAndClosingLeavesNothing() throws Exception {
        Session s = contract().open();
        StopSignal run = new StopSignal();
        RecordingOutput out = new RecordingOutput();
        Thread canceller = Thread.ofVirtual().start(() -> {
            // Cancelled once the step is going (it said so), not after a guess at when it would be.
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!out.stdout().contains("going") && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    return;
                }
            }
            run.stop(StopSignal.Reason.CANCELLED);
        });
        StepOutcome outcome;
        try (StopSignal step = run.child(Duration.ofMinutes(5))) {
            outcome = s.run(sh("cancelled", "echo going; sleep 602"), out, step);
        }
        canceller.join();
        assertThat(outcome).isEqualTo(new StepOutcome.Cancelled());
        s.close();
        assertThat(contract().leftovers()).isEmpty();
    }
}
