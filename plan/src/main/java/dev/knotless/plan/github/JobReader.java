package dev.knotless.plan.github;

import dev.knotless.executor.Resources;
import dev.knotless.plan.CommitFiles;
import dev.knotless.plan.Computed;
import dev.knotless.plan.Deployment;
import dev.knotless.plan.JobCondition;
import dev.knotless.plan.MatrixCell;
import dev.knotless.plan.PrePost;
import dev.knotless.plan.Reports;
import dev.knotless.plan.Service;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepFiles;
import dev.knotless.plan.Triggers;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.Workspace;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads one job into its runs: one, or one per combination of its matrix, each read with that
 * combination's values filled into its expressions.
 */
final class JobReader {

    static final Keys JOB = new Keys(
            List.of("name", "needs", "runs-on", "container", "services", "env", "defaults", "steps", "timeout-minutes",
                    "strategy", "permissions", "continue-on-error", "outputs", "concurrency", "if", "environment"),
            Map.of("uses", "reusable workflows are not carried out yet",
                    "with", "reusable workflows are not carried out yet",
                    "secrets", "reusable workflows are not carried out yet"));
    /** GitHub's default, which a moved workflow relies on. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(360);
    /** A job output's name. */
    private static final Pattern OUTPUT = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");
    /** Where every GitHub job of a container finds its checkout and its home, as docker actions do on GitHub. */
    static final Workspace WORKSPACE = new Workspace("/github/workspace", "/github/home");
    /**
     * GitHub's step files, under GitHub's names, its workflow commands read from a step's output,
     * and the event's payload as far as the run knows it.
     */
    static final StepFiles STEP_FILES = new StepFiles(Map.of(
            StepFiles.Purpose.OUTPUTS, "GITHUB_OUTPUT", StepFiles.Purpose.ENVIRONMENT, "GITHUB_ENV",
            StepFiles.Purpose.PATH, "GITHUB_PATH", StepFiles.Purpose.SUMMARY, "GITHUB_STEP_SUMMARY",
            StepFiles.Purpose.STATE, "GITHUB_STATE"), true, "GITHUB_EVENT_PATH");

    /** What the file around a job gives it. */
    /** What every job of a file shares: its name, triggers, env, defaults, jobs' groups and run name (null for none). */
    record Around(String workflowName, Triggers on, Variables env, RunDefaults defaults, Map<String, String> groups,
            @Nullable Computed runName) {}

    /** A job read: its group name (what {@code needs} names), its runs, and where its needs were written. */
    record Job(String group, List<Workflow> runs, YamlTree.Position nameAt, boolean nameGiven,
            List<YamlTree.Position> needsAt) {}

    private final Fields fields;
    private final Problems problems;

    private final CommitFiles commit;
    private final ContainerReader containers;

    JobReader(Fields fields, Problems problems, CommitFiles commit) {
        this.fields = fields;
        this.problems = problems;
        this.commit = commit;
        this.containers = new ContainerReader(fields, problems);
    }

    @Nullable Job read(Entry entry, Around around) throws WorkflowException {
        String path = YamlTree.child("jobs", entry.key());
        MapNode map = fields.map(entry.value(), path, "a job such as {runs-on: ubuntu-latest, steps: [...]}");
        JOB.check(map, path, fields, problems);
        String group = around.groups().get(entry.key());
        List<String> needs = new ArrayList<>();
        List<YamlTree.Position> needsAt = new ArrayList<>();
        Entry needsEntry = map.entries().get("needs");
        if (needsEntry != null) {
            readNeeds(needsEntry.value(), path + ".needs", entry.key(), around, needs, needsAt);
        }
        if (!map.entries().containsKey("runs-on")) {
            problems.add(fields.error(map.at(), path + ".runs-on", "required: where the job runs (this runner maps it to"
                    + " an image; see the reference)"));
        }
        if (!map.entries().containsKey("steps")) {
            throw fields.error(map.at(), path + ".steps", "required: a job needs at least one step");
        }
        MatrixReader.Strategy strategy = MatrixReader.Strategy.NONE;
        Entry strategyEntry = map.entries().get("strategy");
        if (strategyEntry != null) {
            strategy = new MatrixReader(fields, problems).read(strategyEntry.value(), path + ".strategy");
        }
        Entry nameEntry = map.entries().get("name");
        List<Workflow> runs = new ArrayList<>();
        int index = 0;
        for (Map<String, Node> combination : strategy.combinations()) {
            ReadTime values = new ReadTime(fields, problems, combination, strategy, index++, around.workflowName(), entry.key(),
                    around.on().inputs(), needGroups(needs, around));
            Workflow run = run(map, path, entry.key(), around, group, strategy, combination, values);
            if (run != null) {
                runs.add(run);
            }
        }
        if (problems.any()) {
            return null;
        }
        List<String> needGroups = needs.stream().map(n -> around.groups().get(n)).toList();
        runs = runs.stream().map(r -> r.withNeeds(needGroups)).toList();
        return new Job(group, runs, nameEntry != null ? nameEntry.value().at() : entry.keyAt(), nameEntry != null, needsAt);
    }

    private @Nullable Workflow run(MapNode map, String path, String job, Around around, String group, MatrixReader.Strategy strategy,
            Map<String, Node> combination, ReadTime values) {
        String name = group;
        boolean nameFromMatrix = false;
        String image = null;
        Map<String, String> variables = new LinkedHashMap<>(JobContexts.knownVariables(around.workflowName(), job));
        Variables jobEnv = around.env();
        Map<String, Computed> outputs = new LinkedHashMap<>();
        List<String> labels = new ArrayList<>();
        List<Service> services = new ArrayList<>();
        RunDefaults defaults = around.defaults();
        Duration timeout = DEFAULT_TIMEOUT;
        JobCondition condition = JobCondition.NEEDS_PASSED;
        boolean mayFail = false;
        Deployment deployment = null;
        Node stepsNode = null;
        for (Entry entry : map.entries().values()) {
            String fieldPath = path + "." + entry.key();
            Node value = entry.value();
            switch (entry.key()) {
                case "name" -> {
                    String written = problems.read(() -> values.label(value, fieldPath)).orElse(null);
                    if (written != null) {
                        nameFromMatrix = ((Scalar) value).text().contains("${{");
                        name = around.workflowName() + " / " + written;
                    }
                }
                case "runs-on" -> problems.read(() -> runsOn(value, fieldPath, values)).ifPresent(labels::addAll);
                case "container" -> image = problems.read(() -> containers.container(value, fieldPath, values, variables)).orElse(null);
                case "services" -> problems.read(() -> containers.services(value, fieldPath, values)).ifPresent(services::addAll);
                case "env" -> jobEnv = jobEnv.and(problems.read(() -> values.env(value, fieldPath))
                        .orElse(Variables.NONE));
                case "defaults" -> {
                    RunDefaults base = defaults;
                    defaults = problems.read(() -> base.over(value, fieldPath, fields, problems, values)).orElse(base);
                }
                case "timeout-minutes" -> timeout = problems.read(() -> values.minutes(value, fieldPath)).orElse(timeout);
                case "if" -> condition = problems.read(() -> JobConditions.read(values, fields, value, fieldPath))
                        .orElse(condition);
                case "continue-on-error" -> mayFail = problems.read(() -> values.bool(value, fieldPath)).orElse(false);
                case "permissions" -> problems.check(() -> Permissions.check(value, fieldPath, fields));
                case "concurrency" -> problems.check(() -> Concurrency.check(value, fieldPath, fields, problems));
                case "environment" -> deployment = problems.read(() -> deployment(value, fieldPath, values)).orElse(null);
                case "steps" -> stepsNode = value;
                case "outputs" -> problems.read(() -> outputs(value, fieldPath, values)).ifPresent(outputs::putAll);
                default -> { }
            }
        }
        variables.putAll(jobEnv.known());
        RunDefaults stepDefaults = defaults;
        Node steps = stepsNode;
        Variables stepsAround = jobEnv;
        CheckoutStep checkout = new CheckoutStep(fields, problems, values);
        List<Step> read = steps == null ? null
                : problems.read(() -> new StepReader(fields, problems, values, stepDefaults, stepsAround, new LocalActions(commit),
                        checkout).read(steps, path + ".steps")).orElse(null);
        if (read == null || problems.any()) {
            return null;
        }
        MatrixCell cell = null;
        if (strategy.hasMatrix()) {
            Map<String, String> shown = new LinkedHashMap<>();
            combination.forEach((key, value) -> shown.put(key, MatrixReader.shown(value)));
            if (!nameFromMatrix) {
                name = name + " (" + String.join(", ", shown.values()) + ")";
            }
            cell = new MatrixCell(group, shown, strategy.maxParallel(), strategy.failFast());
        }
        return new Workflow(name, fields.file(), around.on(), List.of(), image, timeout, Resources.DEFAULT, variables,
                List.of(), read, Reports.NONE, services, List.of(), List.of(), cell,
                checkout.history() ? WORKSPACE.withHistory() : WORKSPACE, STEP_FILES, PrePost.NONE,
                outputs, labels, condition, mayFail, deployment, around.runName());
    }

    /** {@code outputs}: names GitHub takes, each a value the run works out after the steps. */
    private Map<String, Computed> outputs(Node node, String path, ReadTime values) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map of output names to values such as ${{ steps.build.outputs.v }}");
        Map<String, Computed> outputs = new LinkedHashMap<>();
        for (Entry entry : map.entries().values()) {
            String outputPath = YamlTree.child(path, entry.key());
            problems.check(() -> {
                if (!OUTPUT.matcher(entry.key()).matches()) {
                    throw fields.error(entry.keyAt(), outputPath, "'" + entry.key() + "' is not a valid output name (letters,"
                            + " digits, '_' and '-', starting with a letter or '_')");
                }
                outputs.put(entry.key(), values.later(entry.value(), outputPath, "a value", ReadTime.Use.HANDED_ON));
            });
        }
        return outputs;
    }

    /**
     * {@code environment}: a name, or {@code {name, url}}; both decided when the file is read (a
     * matrix's values may be in them), as the runner decides before the run starts whether the
     * environment lets it run.
     */
    private Deployment deployment(Node node, String path, ReadTime values) throws WorkflowException {
        String name;
        String url = null;
        if (node instanceof MapNode map) {
            for (Entry entry : map.entries().values()) {
                if (!entry.key().equals("name") && !entry.key().equals("url")) {
                    throw fields.error(entry.keyAt(), YamlTree.child(path, entry.key()), "is not a key of 'environment'"
                            + " (name, url)");
                }
            }
            Entry nameEntry = map.entries().get("name");
            if (nameEntry == null) {
                throw fields.error(map.at(), path, "needs a 'name'");
            }
            name = values.label(nameEntry.value(), path + ".name");
            Entry urlEntry = map.entries().get("url");
            if (urlEntry != null) {
                url = values.text(urlEntry.value(), path + ".url", "an address such as https://staging.example.com");
            }
        } else {
            name = values.label(node, path);
        }
        try {
            return new Deployment(name, url);
        } catch (IllegalArgumentException e) {
            throw fields.error(node.at(), path, e.getMessage());
        }
    }

    /** The jobs {@code needs} names, each with the group of its runs. */
    private static Map<String, String> needGroups(List<String> needs, Around around) {
        Map<String, String> groups = new LinkedHashMap<>();
        needs.forEach(id -> groups.put(id, around.groups().get(id)));
        return groups;
    }

    private void readNeeds(Node node, String path, String self, Around around, List<String> needs,
            List<YamlTree.Position> needsAt) {
        List<Node> items = node instanceof ListNode list ? list.items() : List.of(node);
        for (int i = 0; i < items.size(); i++) {
            Node item = items.get(i);
            String itemPath = node instanceof ListNode ? path + "[" + i + "]" : path;
            problems.read(() -> fields.string(item, itemPath, "a job id")).ifPresent(id -> {
                if (!around.groups().containsKey(id)) {
                    problems.add(fields.error(item.at(), itemPath, "needs job '" + id + "', which this workflow does not"
                            + " have (its jobs: " + String.join(", ", around.groups().keySet()) + ")"));
                } else if (id.equals(self)) {
                    problems.add(fields.error(item.at(), itemPath, "a job cannot need itself"));
                } else if (needs.contains(id)) {
                    problems.add(fields.error(item.at(), itemPath, "job '" + id + "' is needed twice"));
                } else {
                    needs.add(id);
                    needsAt.add(item.at());
                }
            });
        }
    }

    /** Read and checked; which image a label means is the runner's table (docs/reference/github-actions.md). */
    /** {@code runs-on}: a label, a list of them, or {@code {group, labels}}; the labels in order (a group is not one). */
    private List<String> runsOn(Node node, String path, ReadTime values) throws WorkflowException {
        List<String> labels = new ArrayList<>();
        switch (node) {
            case Scalar s -> labels.add(values.text(s, path, "a runner label"));
            case ListNode list -> {
                for (int i = 0; i < list.items().size(); i++) {
                    labels.add(values.text(list.items().get(i), path + "[" + i + "]", "a runner label"));
                }
            }
            case MapNode map -> {
                new Keys(List.of("group", "labels"), Map.of()).check(map, path, fields, problems);
                for (Entry e : map.entries().values()) {
                    if (e.key().equals("labels")) {
                        labels.addAll(runsOn(e.value(), path + ".labels", values));
                    } else {
                        values.text(e.value(), path + "." + e.key(), "a runner group");
                    }
                }
            }
        }
        return labels;
    }
}
