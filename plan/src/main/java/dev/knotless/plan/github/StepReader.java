package dev.knotless.plan.github;

import dev.knotless.plan.Shell;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepCondition;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Reads a job's {@code steps}: each a {@code run} script in its shell, or {@code uses:
 * actions/checkout}, which the runner's own checkout serves (the workspace holds the commit before
 * the first step).
 */
final class StepReader {

    static final Keys STEP = new Keys(
            List.of("id", "name", "run", "shell", "working-directory", "env", "if", "uses", "with", "continue-on-error",
                    "timeout-minutes"),
            Map.of());
    /**
     * {@code actions/checkout}'s inputs, with the values that ask for no more than the runner's
     * checkout gives: the run's commit, one deep, in a fresh workspace, with no credential kept
     * (the run holds none), so {@code clean} and {@code persist-credentials} take either value.
     */
    static final Map<String, Set<String>> CHECKOUT_ACCEPTS = Map.of(
            "fetch-depth", Set.of("1"), "clean", Set.of("true", "false"), "persist-credentials", Set.of("true", "false"),
            "lfs", Set.of("false"), "fetch-tags", Set.of("false"), "show-progress", Set.of("true", "false"),
            "set-safe-directory", Set.of("true", "false"), "submodules", Set.of("false"), "path", Set.of(".", ""));
    static final int MAX_STEPS = 1000;
    private static final Pattern ID = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");
    private static final Pattern CHECKOUT = Pattern.compile("actions/checkout@[A-Za-z0-9._/-]+");

    private final Fields fields;
    private final Problems problems;
    private final ReadTime values;
    private final RunDefaults defaults;

    StepReader(Fields fields, Problems problems, ReadTime values, RunDefaults defaults) {
        this.fields = fields;
        this.problems = problems;
        this.values = values;
        this.defaults = defaults;
    }

    List<Step> read(Node node, String path) throws WorkflowException {
        if (!(node instanceof ListNode list)) {
            throw fields.error(node.at(), path, "expected a list of steps, got " + node.kind().described());
        }
        if (list.items().isEmpty()) {
            throw fields.error(list.at(), path, "is empty: a job needs at least one step");
        }
        if (list.items().size() > MAX_STEPS) {
            throw fields.error(list.at(), path, list.items().size() + " steps; at most " + MAX_STEPS);
        }
        List<Step> steps = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < list.items().size(); i++) {
            int index = i;
            problems.read(() -> step(list.items().get(index), path + "[" + index + "]", index, ids)).ifPresent(steps::add);
        }
        if (steps.isEmpty() && !problems.any()) {
            // Every step's condition left it out of this combination: the run passes, as GitHub's job does.
            steps.add(new Step("Every step skipped in this combination", ":", null, List.of()));
        }
        return steps;
    }

    /** The step, or null when its condition on the matrix leaves it out of this combination. */
    private @Nullable Step step(Node node, String path, int index, Set<String> ids) throws WorkflowException {
        MapNode map = fields.map(node, path, "a step such as {run: make test}");
        STEP.check(map, path, fields, problems);
        Entry run = map.entries().get("run");
        Entry uses = map.entries().get("uses");
        if ((run == null) == (uses == null)) {
            throw fields.error(map.at(), path, run == null ? "a step needs 'run' or 'uses'" : "a step has 'run' or 'uses', not both");
        }
        String name = null;
        String script = ":";
        Shell shell = defaults.shell();
        String workingDirectory = defaults.workingDirectory();
        Map<String, String> env = new LinkedHashMap<>();
        StepCondition condition = StepCondition.SUCCESS;
        boolean runs = true;
        boolean continueOnError = false;
        Duration timeout = null;
        for (Entry entry : map.entries().values()) {
            String fieldPath = path + "." + entry.key();
            Node value = entry.value();
            switch (entry.key()) {
                case "id" -> {
                    String id = fields.string(value, fieldPath, "a step id");
                    if (!ID.matcher(id).matches()) {
                        throw fields.error(value.at(), fieldPath, "'" + id + "' is not a valid step id (letters, digits, '_'"
                                + " and '-', starting with a letter or '_')");
                    }
                    if (!ids.add(id.toLowerCase(java.util.Locale.ROOT))) {
                        throw fields.error(value.at(), fieldPath, "step id '" + id + "' is used twice in this job");
                    }
                }
                case "name" -> name = values.label(value, fieldPath);
                case "run" -> script = values.text(value, fieldPath, "a script");
                case "shell" -> shell = Shells.of(values.text(value, fieldPath, "a shell"), value.at(), fieldPath, fields);
                case "working-directory" -> workingDirectory = RunDefaults.directory(values.text(value, fieldPath,
                        "a directory"), value.at(), fieldPath, fields);
                case "env" -> env.putAll(values.variables(value, fieldPath));
                case "if" -> {
                    StepCondition decided = values.condition(value, fieldPath);
                    runs = decided != null;
                    condition = decided != null ? decided : condition;
                }
                case "continue-on-error" -> continueOnError = values.bool(value, fieldPath);
                case "timeout-minutes" -> timeout = values.minutes(value, fieldPath);
                case "uses" -> script = checkout(values.text(value, fieldPath, "an action"), value.at(), fieldPath,
                        map.entries().get("with"));
                default -> { }
            }
        }
        if (run == null && map.entries().containsKey("shell")) {
            problems.add(fields.error(map.entries().get("shell").keyAt(), path + ".shell", "only a 'run' step has a shell"));
        }
        if (run != null && map.entries().containsKey("with")) {
            problems.add(fields.error(map.entries().get("with").keyAt(), path + ".with", "only a 'uses' step takes 'with'"));
        }
        if (!runs) {
            return null;
        }
        if (name == null) {
            // GitHub's own names: "Run " and the script's first line, or the action.
            name = run != null ? "Run " + firstLine(script) : "Run " + ((YamlTree.Scalar) uses.value()).text();
        }
        return new Step(name, script, timeout, List.of(), env, workingDirectory, null, continueOnError, condition, shell,
                Map.of(), null);
    }

    /**
     * {@code actions/checkout}: the workspace already holds the commit (and a {@code .git} that
     * {@code git rev-parse} and {@code git describe} read), so the step itself has nothing left
     * to do. An input that asks for more than that fails closed.
     */
    private String checkout(String action, YamlTree.Position at, String path, @Nullable Entry with) throws WorkflowException {
        if (action.startsWith("./") || action.startsWith("docker://")) {
            throw fields.error(at, path, "'" + action + "': local and docker actions are not carried out yet");
        }
        if (!CHECKOUT.matcher(action).matches()) {
            throw fields.error(at, path, "'" + action + "': actions other than actions/checkout are not carried out yet;"
                    + " write the step as 'run'");
        }
        if (with != null) {
            MapNode inputs = fields.map(with.value(), path.replace(".uses", ".with"), "a map of inputs");
            for (Entry input : inputs.entries().values()) {
                String inputPath = YamlTree.child(path.replace(".uses", ".with"), input.key());
                Set<String> accepted = CHECKOUT_ACCEPTS.get(input.key());
                String given = values.text(input.value(), inputPath, "a value");
                if (accepted == null || !accepted.contains(given.toLowerCase(java.util.Locale.ROOT))) {
                    problems.add(fields.error(input.value().at(), inputPath, "actions/checkout's '" + input.key() + ": "
                            + given + "' is not carried out yet: the runner checks out the run's commit into the workspace,"
                            + " one commit deep; remove it or do it in a 'run' step"));
                }
            }
        }
        return ":";
    }

    private static String firstLine(String script) {
        String line = script.strip().lines().findFirst().orElse("");
        return line.length() > 80 ? line.substring(0, 80) : line;
    }
}
