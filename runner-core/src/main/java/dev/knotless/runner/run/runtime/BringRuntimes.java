package dev.knotless.runner.run.runtime;

import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.ShellPayload;
import dev.knotless.plan.Step;
import dev.knotless.plan.Workflow;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.Probe;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.time.Durations;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Brings into the run what its steps need from the runner ({@link Step#runtime()}), once each,
 * before the first step: uploads its files under {@link RunLayout#RUNTIMES} and starts it once to
 * see that it runs in the run's image. One the runner does not have, or that cannot run there,
 * ends the run {@code error} with one line naming the step and the image, before any step ran.
 */
public record BringRuntimes(Workflow workflow, String image, Runtimes runtimes) implements Phase {

    /** How much of a runtime's answer to its start the error quotes. */
    private static final int ANSWER = 2048;

    @Override
    public void run(RunContext run) {
        Map<String, Step> needed = new LinkedHashMap<>();
        for (Step step : workflow.steps()) {
            if (step.runtime() != null) {
                needed.putIfAbsent(step.runtime().name(), step);
            }
        }
        for (Map.Entry<String, Step> need : needed.entrySet()) {
            Optional<HostRuntime> runtime = runtimes.find(need.getKey());
            if (runtime.isEmpty()) {
                run.verdict().fail(new Verdict(CheckStatus.ERROR, "step '" + need.getValue().name() + "' runs a JavaScript"
                        + " action, which runs on the runner's own " + need.getKey() + ", and this runner has none: start it"
                        + " with --actions-node PATH (a Node 20 or later on the runner host)"));
                return;
            }
            if (!bring(run, need.getKey(), runtime.get(), need.getValue())) {
                return;
            }
        }
    }

    private boolean bring(RunContext run, String name, HostRuntime runtime, Step first) {
        String dir = RunLayout.RUNTIMES + "/" + name;
        long started = System.nanoTime();
        try {
            run.session().upload(dir, runtime.files(), run.signal());
            String command = ShellPayload.quote(dir + "/" + runtime.command());
            Probe answer = Probe.run(run.session(), "start " + name, "if out=$(" + command + " --version 2>&1); then echo \"ok"
                    + " $out\"; else echo \"failed $? $out\"; fi", ANSWER, run.signal());
            String said = answer.text().strip();
            if (!said.startsWith("ok ")) {
                run.verdict().fail(new Verdict(CheckStatus.ERROR, "the runner's " + runtime.describe() + " cannot run in"
                        + " image '" + image + "' (for step '" + first.name() + "'): " + said.lines().findFirst().orElse("")));
                return false;
            }
            run.log().notice("brought " + runtime.describe() + " into the run for its JavaScript actions in "
                    + Durations.human((System.nanoTime() - started) / 1_000_000));
            return true;
        } catch (ExecutorException e) {
            if (e.failure().kind() != Failure.Kind.STOPPED) {
                run.verdict().fail(new Verdict(CheckStatus.ERROR, "bringing " + name + " into the run failed: "
                        + e.failure().reason()));
            }
            return false;
        }
    }
}
