package dev.knotless.plan;

import dev.knotless.executor.Resources;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One workflow of a commit, read from its file by a {@link Dialect}: the plan of one run (or of
 * one combination of a matrix). Ours is written as {@code docs/reference/workflow.md} says.
 *
 * @param name shown on the check; when the file gives none, its dialect names it after the file
 *     ({@code ci} for ours, {@code ci.yml} for tangled's)
 * @param file the path it was read from, such as {@code .knotless/workflows/ci.yaml}
 * @param on which events and branches run it
 * @param runners the runner ids it is pinned to; empty for any runner
 * @param image the OCI image its steps run in; null for the runner's default
 * @param timeout the whole run's limit; null for the runner's default
 * @param resources CPU and memory; {@link Resources#DEFAULT} when the file sets none
 * @param variables run variables, in the file's order
 * @param cache what the run caches between runs, in the file's order
 * @param steps at least one
 * @param reports the test reports read after the steps; {@link Reports#NONE} when the file names none
 * @param services containers beside the run, reachable by name, in the file's order
 * @param needs the workflows (names as written, before matrix expansion) of the same commit and event
 *     that must succeed before this one starts
 * @param artifacts paths and globs under the workspace saved after a successful run, for the workflows
 *     that need it
 * @param cell which combination of its matrix this is; null for a workflow without a matrix
 * @param workspace where the steps work and their {@code HOME}; {@link Workspace#DEFAULT} for ours
 * @param stepFiles the files through which steps hand values back; {@link StepFiles#NONE} for ours
 * @param prePost steps run before and after the workflow's own; {@link PrePost#NONE} for ours
 * @param outputs what the run hands to the runs that need it, worked out after its steps; empty for ours
 * @param labels the kind of machine it asks for, in the file's order (GitHub's {@code runs-on}),
 *     which the runner's table maps to an image when it names none; empty for ours
 * @param condition when it starts, given how the runs it needs ended; {@link JobCondition#NEEDS_PASSED}
 *     for ours
 * @param continueOnError its failure fails nothing that runs it, and the runs that need it start
 *     (GitHub's job {@code continue-on-error}); false for ours
 * @param deployment the deployment environment it runs in (GitHub's job {@code environment}), whose
 *     variables and secrets it gets once the operator declared it and its rules let it; null for none
 * @param runName what its run is called beside its name, worked out as it starts (GitHub's {@code
 *     run-name}); null for none
 */
public record Workflow(
        String name,
        String file,
        Triggers on,
        List<String> runners,
        @Nullable String image,
        @Nullable Duration timeout,
        Resources resources,
        Map<String, String> variables,
        List<String> cache,
        List<Step> steps,
        Reports reports,
        List<Service> services,
        List<String> needs,
        List<String> artifacts,
        @Nullable MatrixCell cell,
        Workspace workspace,
        StepFiles stepFiles,
        PrePost prePost,
        Map<String, Computed> outputs,
        List<String> labels,
        JobCondition condition,
        boolean continueOnError,
        @Nullable Deployment deployment,
        @Nullable Computed runName) {

    public Workflow {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(on, "on");
        Objects.requireNonNull(resources, "resources");
        runners = List.copyOf(runners);
        variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
        cache = List.copyOf(cache);
        steps = List.copyOf(steps);
        Objects.requireNonNull(reports, "reports");
        services = List.copyOf(services);
        needs = List.copyOf(needs);
        artifacts = List.copyOf(artifacts);
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(stepFiles, "stepFiles");
        Objects.requireNonNull(prePost, "prePost");
        outputs = Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
        labels = List.copyOf(labels);
        Objects.requireNonNull(condition, "condition");
    }

    /** A workflow whose failure fails what runs it. */
    public Workflow(String name, String file, Triggers on, List<String> runners, @Nullable String image,
            @Nullable Duration timeout, Resources resources, Map<String, String> variables, List<String> cache, List<Step> steps,
            Reports reports, List<Service> services, List<String> needs, List<String> artifacts, @Nullable MatrixCell cell,
            Workspace workspace, StepFiles stepFiles, PrePost prePost, Map<String, Computed> outputs, List<String> labels,
            JobCondition condition) {
        this(name, file, on, runners, image, timeout, resources, variables, cache, steps, reports, services, needs, artifacts,
                cell, workspace, stepFiles, prePost, outputs, labels, condition, false, null, null);
    }

    /** A workflow deployed nowhere. */
    public Workflow(String name, String file, Triggers on, List<String> runners, @Nullable String image,
            @Nullable Duration timeout, Resources resources, Map<String, String> variables, List<String> cache, List<Step> steps,
            Reports reports, List<Service> services, List<String> needs, List<String> artifacts, @Nullable MatrixCell cell,
            Workspace workspace, StepFiles stepFiles, PrePost prePost, Map<String, Computed> outputs, List<String> labels,
            JobCondition condition, boolean continueOnError) {
        this(name, file, on, runners, image, timeout, resources, variables, cache, steps, reports, services, needs, artifacts,
                cell, workspace, stepFiles, prePost, outputs, labels, condition, continueOnError, null, null);
    }

    /** A workflow that starts once every run it needs passed. */
    public Workflow(String name, String file, Triggers on, List<String> runners, @Nullable String image,
            @Nullable Duration timeout, Resources resources, Map<String, String> variables, List<String> cache, List<Step> steps,
            Reports reports, List<Service> services, List<String> needs, List<String> artifacts, @Nullable MatrixCell cell,
            Workspace workspace, StepFiles stepFiles, PrePost prePost, Map<String, Computed> outputs, List<String> labels) {
        this(name, file, on, runners, image, timeout, resources, variables, cache, steps, reports, services, needs, artifacts,
                cell, workspace, stepFiles, prePost, outputs, labels, JobCondition.NEEDS_PASSED);
    }

    /** A workflow that hands nothing to the runs that need it. */
    public Workflow(String name, String file, Triggers on, List<String> runners, @Nullable String image,
            @Nullable Duration timeout, Resources resources, Map<String, String> variables, List<String> cache, List<Step> steps,
            Reports reports, List<Service> services, List<String> needs, List<String> artifacts, @Nullable MatrixCell cell,
            Workspace workspace, StepFiles stepFiles, PrePost prePost) {
        this(name, file, on, runners, image, timeout, resources, variables, cache, steps, reports, services, needs, artifacts,
                cell, workspace, stepFiles, prePost, Map.of(), List.of());
    }

    /** A workflow of ours: in the default workspace, no step files, nothing before or after its steps. */
    public Workflow(String name, String file, Triggers on, List<String> runners, @Nullable String image,
            @Nullable Duration timeout, Resources resources, Map<String, String> variables, List<String> cache, List<Step> steps,
            Reports reports, List<Service> services, List<String> needs, List<String> artifacts, @Nullable MatrixCell cell) {
        this(name, file, on, runners, image, timeout, resources, variables, cache, steps, reports, services, needs, artifacts,
                cell, Workspace.DEFAULT, StepFiles.NONE, PrePost.NONE);
    }

    /** A workflow without services, needs, artifacts or matrix. */
    public Workflow(String name, String file, Triggers on, List<String> runners, @Nullable String image,
            @Nullable Duration timeout, Resources resources, Map<String, String> variables, List<String> cache, List<Step> steps,
            Reports reports) {
        this(name, file, on, runners, image, timeout, resources, variables, cache, steps, reports, List.of(), List.of(),
                List.of(), null);
    }

    /** This workflow under another name, all else kept. */
    public Workflow named(String newName) {
        return new Workflow(newName, file, on, runners, image, timeout, resources, variables, cache, steps, reports, services,
                needs, artifacts, cell, workspace, stepFiles, prePost, outputs, labels, condition, continueOnError, deployment, runName);
    }

    /** This workflow needing {@code newNeeds} (names of groups), all else kept. */
    public Workflow withNeeds(List<String> newNeeds) {
        return new Workflow(name, file, on, runners, image, timeout, resources, variables, cache, steps, reports, services,
                newNeeds, artifacts, cell, workspace, stepFiles, prePost, outputs, labels, condition, continueOnError, deployment, runName);
    }

    /** What {@code needs} calls it: its name as written, shared by the combinations of its matrix. */
    public String group() {
        return cell == null ? name : cell.group();
    }

    /** This workflow with these parts replaced and the rest (triggers, graph, services) kept. */
    public Workflow with(String newName, String newFile, @Nullable String newImage, @Nullable Duration newTimeout,
            Resources newResources, Map<String, String> newVariables, List<String> newCache, List<Step> newSteps) {
        return new Workflow(newName, newFile, on, runners, newImage, newTimeout, newResources, newVariables, newCache, newSteps,
                reports, services, needs, artifacts, cell, workspace, stepFiles, prePost, outputs, labels, condition, continueOnError, deployment, runName);
    }

    /** This workflow as one combination of its matrix: these parts filled in, the rest kept. */
    public Workflow asCombination(String newName, @Nullable String newImage, Map<String, String> newVariables,
            List<Service> newServices, MatrixCell newCell) {
        return new Workflow(newName, file, on, runners, newImage, timeout, resources, newVariables, cache, steps, reports,
                newServices, needs, artifacts, newCell, workspace, stepFiles, prePost, outputs, labels, condition, continueOnError, deployment, runName);
    }

    /**
     * The file name without directory and extension: {@code .knotless/workflows/ci.yaml} gives
     * {@code ci}. What a need names a file by that does not parse, whatever its dialect.
     */
    public static String baseName(String file) {
        String base = file.substring(file.lastIndexOf('/') + 1);
        int dot = base.lastIndexOf('.');
        return dot > 0 ? base.substring(0, dot) : base;
    }

    /** A workflow that reads no test reports. */
    public Workflow(String name, String file, Triggers on, List<String> runners, @Nullable String image,
            @Nullable Duration timeout, Resources resources, Map<String, String> variables, List<String> cache, List<Step> steps) {
        this(name, file, on, runners, image, timeout, resources, variables, cache, steps, Reports.NONE);
    }
}
