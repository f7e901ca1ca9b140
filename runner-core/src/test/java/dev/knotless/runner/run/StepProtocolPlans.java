package dev.knotless.runner.run;

import dev.knotless.plan.Computed;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepFiles;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.Workspace;
import dev.knotless.runner.run.request.RunRequest;
import java.util.List;
import java.util.Map;

/**
 * Plans whose steps hand values back, as GitHub Actions' front-end will write them: no dialect
 * sets {@link StepFiles} yet, so the tests build them by hand on a workflow of ours.
 */
public final class StepProtocolPlans {

    /** Every file, under GitHub's names, and its workflow commands. */
    public static final StepFiles GITHUB = new StepFiles(Map.of(
            StepFiles.Purpose.OUTPUTS, "GITHUB_OUTPUT",
            StepFiles.Purpose.ENVIRONMENT, "GITHUB_ENV",
            StepFiles.Purpose.PATH, "GITHUB_PATH",
            StepFiles.Purpose.SUMMARY, "GITHUB_STEP_SUMMARY",
            StepFiles.Purpose.STATE, "GITHUB_STATE"), true);

    private StepProtocolPlans() {}

    /** {@code request} with its workflow's steps handing values back through {@code files}. */
    public static RunRequest handingBack(RunRequest request, StepFiles files) {
        return request.withWorkflow(with(request.workflow(), files, request.workflow().workspace(), request.workflow().steps()));
    }

    /** {@code request} in {@code workspace}, handing values back through {@code files}. */
    public static RunRequest handingBack(RunRequest request, StepFiles files, Workspace workspace) {
        return request.withWorkflow(with(request.workflow(), files, workspace, request.workflow().steps()));
    }

    /** {@code request} with step {@code number}'s variables {@code computed} as it starts. */
    public static RunRequest computing(RunRequest request, int number, Map<String, Computed> computed) {
        Workflow w = request.workflow();
        List<Step> steps = new java.util.ArrayList<>(w.steps());
        Step s = steps.get(number - 1);
        steps.set(number - 1, new Step(s.name(), s.run(), s.timeout(), s.secrets(), s.env(), s.workingDirectory(), s.retry(),
                s.continueOnError(), s.condition(), s.shell(), computed, s.runtime()));
        return request.withWorkflow(with(w, w.stepFiles(), w.workspace(), steps));
    }

    /** A plain step of ours called {@code name}. */
    public static Step step(String name) {
        return new Step(name, "true", null, List.of());
    }

    private static Workflow with(Workflow w, StepFiles files, Workspace workspace, List<Step> steps) {
        return new Workflow(w.name(), w.file(), w.on(), w.runners(), w.image(), w.timeout(), w.resources(), w.variables(),
                w.cache(), steps, w.reports(), w.services(), w.needs(), w.artifacts(), w.cell(), workspace, files, w.prePost());
    }
}
