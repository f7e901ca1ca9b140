package dev.knotless.plan.github;

import dev.knotless.plan.CommitFiles;
import dev.knotless.plan.StepCondition;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Position;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The local actions a job's steps name ({@code uses: ./.github/actions/setup}), read from the
 * commit the workflow is read from: the directory's {@code action.yml} (or {@code action.yaml}),
 * its inputs, outputs and, for a composite action, its steps, which {@link StepReader} reads into
 * the job's; for a JavaScript action, the file its {@code main} runs. GitHub's runner reads the file from the workspace as the step starts, after the
 * steps before may have changed it; here it is the commit's, read when the workflow is, so a
 * mistake in it is an error at its line before anything runs.
 */
final class LocalActions {

    /** How deep composite actions may call composite actions, as GitHub's runner allows. */
    static final int MOST_NESTED = 10;
    static final Keys ACTION = new Keys(List.of("name", "description", "author", "branding", "inputs", "outputs", "runs"),
            Map.of());
    static final Keys INPUT = new Keys(List.of("description", "required", "default", "deprecationMessage"), Map.of());
    static final Keys OUTPUT = new Keys(List.of("description", "value"), Map.of());
    static final Keys COMPOSITE = new Keys(List.of("using", "steps"), Map.of());
    static final Keys JAVASCRIPT = new Keys(List.of("using", "main", "pre", "pre-if", "post", "post-if"), Map.of());
    /** The {@code pre-if} and {@code post-if} values carried out: a status function alone, {@code always()} when not given, as GitHub's. */
    private static final Map<String, StepCondition> STAGE_IF = Map.of("always()", StepCondition.ALWAYS,
            "success()", StepCondition.SUCCESS, "failure()", StepCondition.FAILURE, "cancelled()", StepCondition.CANCELLED);
    private static final java.util.regex.Pattern INPUT_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_ .-]*");
    private static final java.util.regex.Pattern MAIN = java.util.regex.Pattern.compile("[A-Za-z0-9._/@+-]+");

    /**
     * A local action as read: where it is, and the nodes of its file the steps reader reads; a
     * composite action has {@code steps}, a JavaScript one {@code javascript}.
     */
    record Action(String directory, Fields fields, Map<String, Input> inputs, Map<String, Node> outputs,
            @Nullable Node steps, @Nullable JavaScript javascript) {}

    /**
     * What a JavaScript action runs: {@code main}, a file under the action's directory, on the Node
     * {@code using} names ({@code 20} or {@code 24}); {@code pre} (null for none) before the job's
     * steps, when {@code preIf} says so; {@code post} (null for none) after them, when {@code
     * postIf} says so and main ran.
     */
    record JavaScript(String node, String main, @Nullable String pre, StepCondition preIf, @Nullable String post,
            StepCondition postIf) {}

    /** One input an action declares. */
    record Input(@Nullable Node defaultValue, boolean required) {}

    private final CommitFiles commit;
    private final int depth;

    LocalActions(CommitFiles commit) {
        this(commit, 0);
    }

    private LocalActions(CommitFiles commit, int depth) {
        this.commit = commit;
        this.depth = depth;
    }

    /** For the steps of an action read by this one: one level deeper. */
    LocalActions nested() {
        return new LocalActions(commit, depth + 1);
    }

    /**
     * The composite action {@code uses} names ({@code ./DIR}, from the repository's root), read
     * with {@code problems}; an error at {@code at} of {@code path} (the caller's {@code uses})
     * when it cannot be read or is not one this runner carries out.
     */
    Action read(String uses, Position at, String path, Fields caller, Problems problems) throws WorkflowException {
        if (depth >= MOST_NESTED) {
            throw caller.error(at, path, "local actions call local actions more than " + MOST_NESTED + " deep");
        }
        String directory = directory(uses, at, path, caller);
        CommitFiles.Directory files;
        try {
            files = commit.directory(directory);
        } catch (IllegalStateException e) {
            throw caller.error(at, path, "'" + uses + "' cannot be read: " + e.getMessage());
        }
        String file = null;
        for (String name : List.of("action.yml", "action.yaml")) {
            String candidate = directory.isEmpty() ? name : directory + "/" + name;
            if (files.refused().containsKey(candidate)) {
                throw caller.error(at, path, "'" + uses + "': " + candidate + " " + files.refused().get(candidate)
                        + "; it is not read");
            }
            if (file == null && files.texts().containsKey(candidate)) {
                file = candidate;
            }
        }
        if (file == null) {
            throw caller.error(at, path, "'" + uses + "': the commit has no " + (directory.isEmpty() ? "" : directory + "/")
                    + "action.yml or action.yaml (a local action is read from the commit the workflow is read from)");
        }
        Fields fields = new Fields(file);
        MapNode root = fields.map(YamlTree.read(file, files.texts().get(file)), "", "an action: {name, inputs, runs, ...}");
        ACTION.check(root, "", fields, problems);
        Entry runs = root.entries().get("runs");
        if (runs == null) {
            throw fields.error(root.at(), "runs", "required: how the action runs, such as {using: composite, steps: [...]}");
        }
        MapNode how = fields.map(runs.value(), "runs", "a map such as {using: composite, steps: [...]}");
        Entry using = how.entries().get("using");
        if (using == null) {
            throw fields.error(how.at(), "runs.using", "required: composite, node20, node24 or docker");
        }
        String kind = fields.string(using.value(), "runs.using", "how the action runs");
        switch (kind) {
            case "composite" -> COMPOSITE.check(how, "runs", fields, problems);
            case "node20", "node24" -> {
                JAVASCRIPT.check(how, "runs", fields, problems);
                return new Action(directory, fields, inputs(root, fields, problems), outputs(root, fields, problems, false), null,
                        new JavaScript(kind.substring("node".length()), file(how, "main", fields),
                                how.entries().containsKey("pre") ? file(how, "pre", fields) : null, stageIf(how, "pre-if", fields),
                                how.entries().containsKey("post") ? file(how, "post", fields) : null, stageIf(how, "post-if", fields)));
            }
            case "node12", "node16" -> throw fields.error(using.value().at(), "runs.using", "'" + kind + "' is a Node"
                    + " GitHub no longer runs actions on; the runner runs node20 and node24 actions on its own Node");
            case "docker" -> throw fields.error(using.value().at(), "runs.using", "docker actions are not carried out yet;"
                    + " only composite and JavaScript local actions are");
            default -> throw fields.error(using.value().at(), "runs.using", "'" + kind + "' is not a way an action runs"
                    + " (composite, node20, node24 or docker)");
        }
        Entry steps = how.entries().get("steps");
        if (steps == null) {
            throw fields.error(how.at(), "runs.steps", "required: a composite action's steps");
        }
        return new Action(directory, fields, inputs(root, fields, problems), outputs(root, fields, problems, true), steps.value(),
                null);
    }

    /** {@code runs.KEY}: a file under the action's directory, named plainly enough to be written into a script. */
    private static String file(MapNode how, String key, Fields fields) throws WorkflowException {
        Entry entry = how.entries().get(key);
        if (entry == null) {
            throw fields.error(how.at(), "runs." + key, "required: the file a JavaScript action runs, such as dist/index.js");
        }
        String file = fields.string(entry.value(), "runs." + key, "a file under the action's directory");
        if (!MAIN.matcher(file).matches() || file.startsWith("/") || List.of(file.split("/")).contains("..")) {
            throw fields.error(entry.value().at(), "runs." + key, "'" + file + "' is not a file under the action's directory"
                    + " (letters, digits and . _ / @ + -, no '..')");
        }
        return file;
    }

    private static StepCondition stageIf(MapNode how, String key, Fields fields) throws WorkflowException {
        Entry entry = how.entries().get(key);
        if (entry == null) {
            return StepCondition.ALWAYS;
        }
        String text = fields.string(entry.value(), "runs." + key, "a condition").strip();
        StepCondition condition = STAGE_IF.get(text.replaceAll("^\\$\\{\\{\\s*|\\s*}}$", ""));
        if (condition == null) {
            throw fields.error(entry.value().at(), "runs." + key, "'" + text + "' is not carried out yet: write always(),"
                    + " success(), failure() or cancelled()");
        }
        return condition;
    }

    /** The directory {@code uses} names, from the repository's root; one outside it is refused. */
    private static String directory(String uses, Position at, String path, Fields caller) throws WorkflowException {
        String rest = uses.substring(2);
        List<String> parts = new java.util.ArrayList<>();
        for (String part : rest.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                if (parts.isEmpty()) {
                    throw caller.error(at, path, "'" + uses + "' is outside the repository");
                }
                parts.removeLast();
            } else {
                parts.add(part);
            }
        }
        return String.join("/", parts);
    }

    private static Map<String, Input> inputs(MapNode root, Fields fields, Problems problems) throws WorkflowException {
        Map<String, Input> inputs = new LinkedHashMap<>();
        Entry declared = root.entries().get("inputs");
        if (declared == null || declared.value().kind() == YamlTree.Kind.NULL) {
            return inputs;
        }
        for (Entry input : fields.map(declared.value(), "inputs", "a map of input names to {description, default}")
                .entries().values()) {
            String path = YamlTree.child("inputs", input.key());
            if (!INPUT_NAME.matcher(input.key()).matches()) {
                throw fields.error(input.keyAt(), path, "an input's name is letters, digits and _ - . or spaces,"
                        + " starting with a letter, a digit or _");
            }
            MapNode map = input.value().kind() == YamlTree.Kind.NULL ? null
                    : fields.map(input.value(), path, "a map such as {description: ..., default: ...}");
            if (map != null) {
                INPUT.check(map, path, fields, problems);
            }
            Entry required = map == null ? null : map.entries().get("required");
            Entry defaultValue = map == null ? null : map.entries().get("default");
            inputs.put(input.key(), new Input(defaultValue == null ? null : defaultValue.value(), required != null
                    && required.value() instanceof YamlTree.Scalar s && s.text().equalsIgnoreCase("true")));
        }
        return inputs;
    }

    private static Map<String, Node> outputs(MapNode root, Fields fields, Problems problems, boolean composite)
            throws WorkflowException {
        Map<String, Node> outputs = new LinkedHashMap<>();
        Entry declared = root.entries().get("outputs");
        if (declared == null || declared.value().kind() == YamlTree.Kind.NULL) {
            return outputs;
        }
        for (Entry output : fields.map(declared.value(), "outputs", "a map of output names to {value}").entries().values()) {
            String path = YamlTree.child("outputs", output.key());
            MapNode map = fields.map(output.value(), path, "a map such as {value: ${{ steps.x.outputs.y }}}");
            OUTPUT.check(map, path, fields, problems);
            Entry value = map.entries().get("value");
            if (value != null) {
                outputs.put(output.key(), value.value());
            } else if (composite) { // a JavaScript action's outputs are what its main sets, declared without a value
                throw fields.error(map.at(), path + ".value", "required: a composite action's output has a value");
            }
        }
        return outputs;
    }
}
