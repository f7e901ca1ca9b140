package dev.knotless.runner.run;

import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.tar.Bounded;
import dev.knotless.time.Deadline;
import dev.knotless.time.Durations;

/** Streams the commit's tree into the workspace ({@code /work} for ours), bounded by the checkout limit. */
final class UploadCheckout implements Phase {

    @Override
    public void run(RunState state) {
        long limit = state.limits.checkoutBytes();
        Deadline deadline = state.transferDeadline();
        long started = System.nanoTime();
        String workspace = state.request.workflow().workspace().directory();
        try {
            state.session.upload(workspace,
                    out -> state.request.checkout().writeTo(Bounded.output(out, limit, deadline, "checkout")),
                    state.runSignal);
            state.log.notice("checkout " + shortSha(state.request.commit()) + " uploaded to " + workspace
                    + " in " + Durations.human((System.nanoTime() - started) / 1_000_000));
        } catch (ExecutorException e) {
            if (e.failure().kind() != Failure.Kind.STOPPED) {
                state.fail(new Verdict(CheckStatus.ERROR, "checkout failed: " + e.failure().reason()));
            }
        }
    }

    static String shortSha(String sha) {
        return sha.length() > 12 ? sha.substring(0, 12) : sha;
    }
}
