package dev.knotless.runner.run.transfer;

import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.TarSource;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.tar.Bounded;
import dev.knotless.time.Deadline;
import dev.knotless.time.Durations;

/**
 * Streams the commit's tree into the workspace ({@code /work} for ours), bounded by the checkout limit.
 *
 * @param workspace the directory the checkout goes to (the plan's workspace)
 * @param limit the largest checkout tar sent into the run
 */
public record UploadCheckout(TarSource checkout, String commit, String workspace, long limit) implements Phase {

    @Override
    public void run(RunContext run) {
        Deadline deadline = run.transferDeadline();
        long started = System.nanoTime();
        try {
            run.session().upload(workspace,
                    out -> checkout.writeTo(Bounded.output(out, limit, deadline, "checkout")),
                    run.signal());
            run.log().notice("checkout " + shortSha(commit) + " uploaded to " + workspace
                    + " in " + Durations.human((System.nanoTime() - started) / 1_000_000));
        } catch (ExecutorException e) {
            if (e.failure().kind() != Failure.Kind.STOPPED) {
                run.verdict().fail(new Verdict(CheckStatus.ERROR, "checkout failed: " + e.failure().reason()));
            }
        }
    }

    static String shortSha(String sha) {
        return sha.length() > 12 ? sha.substring(0, 12) : sha;
    }
}
