package dev.knotless.plan.github;

import dev.knotless.plan.Computed;
import dev.knotless.plan.Deferred;
import dev.knotless.plan.RunValue;
import dev.knotless.plan.Shell;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepCondition;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.expression.Value;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
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
    static final int MAX_STEPS = 1000;
    private static final Pattern ID = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");

    private final Fields fields;
    private final Problems problems;
    private final ReadTime values;
    private final RunDefaults defaults;
    /** The workflow's and job's variables the run computes, which a step's own {@code env} overrides. */
    private final Variables around;
    private final LocalActions actions;
    /** The job's {@code actions/checkout} steps, which tell what its checkout holds. */
    private final CheckoutStep checkout;
    /** Whose steps these are: {@link Step#JOB}, or a local action's. */
    private final String scope;
    /** What each step's name starts with: the calling step's, for a local action's steps. */
    private final String prefix;
    /** What a condition on a step that uses a composite action may read: what no step changes. */
    private static final List<String> STEADY = List.of("github", "runner", "matrix", "strategy", "needs", "inputs");
    /** The pre steps of the JavaScript actions read so far, which run before the job's steps, in order. */
    private final List<Step> pres = new ArrayList<>();
    /** The post steps of the JavaScript actions read so far, which run after the job's steps, last first. */
    private final List<Step> posts = new ArrayList<>();

    /**
     * A job's steps.
     *
     * @param around the workflow's and job's {@code env} left to the run, and the secrets it reads,
     *     which each step is granted
     */
    StepReader(Fields fields, Problems problems, ReadTime values, RunDefaults defaults, Variables around,
            LocalActions actions, CheckoutStep checkout) {
        this(fields, problems, values, defaults, around, actions, checkout, Step.JOB, "");
    }

    private StepReader(Fields fields, Problems problems, ReadTime values, RunDefaults defaults, Variables around,
            LocalActions actions, CheckoutStep checkout, String scope, String prefix) {
        this.fields = fields;
        this.problems = problems;
        this.values = values;
        this.defaults = defaults;
        this.around = around;
        this.actions = actions;
        this.checkout = checkout;
        this.scope = scope;
        this.prefix = prefix;
    }

    /** Whether these are a composite action's steps, which GitHub reads a little differently. */
    private boolean composite() {
        return !scope.equals(Step.JOB);
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
            problems.read(() -> step(list.items().get(index), path + "[" + index + "]", index, ids)).ifPresent(steps::addAll);
        }
        steps.addAll(0, pres);
        steps.addAll(posts.reversed());
        if (steps.size() > MAX_STEPS) {
            throw fields.error(list.at(), path, "comes to " + steps.size() + " steps with its local actions'; at most " + MAX_STEPS);
        }
        if (steps.isEmpty() && !problems.any() && !composite()) {
            // Every step's condition left it out of this combination: the run passes, as GitHub's job does.
            steps.add(new Step("Every step skipped in this combination", ":", null, List.of()));
        }
        return steps;
    }

    /**
     * The step, or a local action's steps; none when its condition on the matrix leaves it out of
     * this combination.
     */
    private List<Step> step(Node node, String path, int index, Set<String> ids) throws WorkflowException {
        MapNode map = fields.map(node, path, "a step such as {run: make test}");
        STEP.check(map, path, fields, problems);
        Entry run = map.entries().get("run");
        Entry uses = map.entries().get("uses");
        if ((run == null) == (uses == null)) {
            throw fields.error(map.at(), path, run == null ? "a step needs 'run' or 'uses'" : "a step has 'run' or 'uses', not both");
        }
        Computed name = null;
        Computed script = new Computed.Text(":");
        String id = null;
        Shell shell = defaults.shell();
        String workingDirectory = defaults.workingDirectory();
        Variables env = Variables.NONE;
        ReadTime.When when = new ReadTime.When(StepCondition.SUCCESS, null);
        boolean continueOnError = false;
        Duration timeout = null;
        Entry shellEntry = map.entries().get("shell");
        if (shellEntry != null) {
            shell = Shells.of(values.text(shellEntry.value(), path + ".shell", "a shell"), shellEntry.value().at(),
                    path + ".shell", fields);
        }
        for (Entry entry : map.entries().values()) {
            String fieldPath = path + "." + entry.key();
            Node value = entry.value();
            switch (entry.key()) {
                case "id" -> {
                    id = fields.string(value, fieldPath, "a step id");
                    if (!ID.matcher(id).matches()) {
                        throw fields.error(value.at(), fieldPath, "'" + id + "' is not a valid step id (letters, digits, '_'"
                                + " and '-', starting with a letter or '_')");
                    }
                    if (!ids.add(id.toLowerCase(java.util.Locale.ROOT))) {
                        throw fields.error(value.at(), fieldPath, "step id '" + id + "' is used twice in this job");
                    }
                }
                case "name" -> name = values.name(value, fieldPath);
                case "run" -> { } // once its shell is known, below
                case "working-directory" -> workingDirectory = RunDefaults.directory(values.text(value, fieldPath,
                        "a directory"), value.at(), fieldPath, fields);
                case "env" -> env = values.env(value, fieldPath);
                case "if" -> {
                    when = values.condition(value, fieldPath);
                    if (when == null) {
                        return List.of();
                    }
                }
                case "continue-on-error" -> continueOnError = values.bool(value, fieldPath);
                case "timeout-minutes" -> timeout = values.minutes(value, fieldPath);
                case "uses" -> {
                    String action = values.text(value, fieldPath, "an action");
                    if (!action.startsWith("./")) {
                        script = new Computed.Text(checkout.read(action, value.at(), fieldPath, map.entries().get("with"),
                                scope.equals(Step.JOB)));
                    }
                }
                default -> { }
            }
        }
        if (run == null && map.entries().containsKey("shell")) {
            problems.add(fields.error(map.entries().get("shell").keyAt(), path + ".shell", "only a 'run' step has a shell"));
        }
        if (run != null && composite() && shellEntry == null) {
            throw fields.error(run.keyAt(), path + ".shell", "required: a composite action's 'run' step names its shell, as"
                    + " GitHub requires");
        }
        if (uses != null && ((Scalar) uses.value()).text().startsWith("./")) {
            String callerName = name != null ? text(name) : "Run " + ((Scalar) uses.value()).text();
            return local(((Scalar) uses.value()).text(), uses.value(), path, map, new JavaScriptStep.Caller(prefix + callerName,
                    id, when, continueOnError, timeout, workingDirectory, env), index);
        }
        if (id == null && composite()) {
            id = "-" + (index + 1); // a name no file can give: the action's end reads every step's conclusion
        }
        ReadTime.Script written = null;
        if (run != null) {
            written = values.script(run.value(), path + ".run", Shells.readsVariables(shell));
            script = written.text();
        }
        if (run != null && map.entries().containsKey("with")) {
            problems.add(fields.error(map.entries().get("with").keyAt(), path + ".with", "only a 'uses' step takes 'with'"));
        }
        String shown = prefix + (name != null ? text(name) : run != null ? "Run " + firstLine(text(script))
                : "Run " + ((Scalar) uses.value()).text());
        // Under the step's own: the workflow's and job's values the run computes, as GitHub's job environment.
        Map<String, Computed> computed = new LinkedHashMap<>(JobContexts.factVariables(values.runContexts()));
        for (Map.Entry<String, Computed> variable : around.computed().entrySet()) {
            if (!env.values().containsKey(variable.getKey())) {
                computed.put(variable.getKey(), variable.getValue());
            }
        }
        computed.putAll(env.computed());
        Set<String> secrets = new LinkedHashSet<>(around.secrets());
        secrets.addAll(env.secrets());
        if (written != null) {
            computed.putAll(written.variables());
            secrets.addAll(written.secrets());
        }
        Deferred deferred = new Deferred(name instanceof Computed.Evaluated ? name : null,
                script instanceof Computed.Evaluated ? script : null, when.also());
        // A local action's steps get its caller's variables as their own: they are no run variables.
        Map<String, String> own = new LinkedHashMap<>(composite() ? around.known() : Map.of());
        own.keySet().removeAll(env.values().keySet());
        own.putAll(env.known());
        return List.of(new Step(shown, text(script), timeout, List.copyOf(secrets), own, workingDirectory, null,
                continueOnError, when.gate(), shell, computed, null, id, deferred, scope, Map.of()));
    }

    /**
     * A step that uses a local action. A composite action's steps, read from its file in a scope
     * of their own (their {@code steps}, the {@code inputs} this step gives), each named after this
     * step; then, when this step has an id, a step that ends the action, in this step's scope,
     * which fails when one of its steps did and hands on the action's outputs. A JavaScript
     * action's one step ({@link JavaScriptStep}).
     */
    private List<Step> local(String uses, Node usesNode, String path, MapNode map, JavaScriptStep.Caller caller, int index)
            throws WorkflowException {
        String callerName = caller.name();
        String callerId = caller.id();
        Variables env = caller.env();
        LocalActions.Action action = actions.read(uses, usesNode.at(), path + ".uses", fields, problems);
        Computed guard = caller.when().also();
        if (action.javascript() == null && (caller.when().gate() != StepCondition.SUCCESS
                || guard != null && !(guard instanceof Computed.Evaluated e && STEADY.containsAll(e.expression().contexts())))) {
            throw fields.error(map.entries().get("if").value().at(), path + ".if", "a condition on a step that uses a local"
                    + " composite action may read only what stays the same through the run (" + String.join(", ", STEADY)
                    + "); one that calls a status function or reads steps, env or job is not carried out yet: put it on"
                    + " the action's steps");
        }
        for (String key : List.of("continue-on-error", "timeout-minutes", "working-directory")) {
            if (action.javascript() == null && map.entries().containsKey(key)) {
                throw fields.error(map.entries().get(key).keyAt(), path + "." + key, "'" + key + "' on a step that uses a"
                        + " local composite action is not carried out yet");
            }
        }
        String actionScope = scope + "/" + (index + 1);
        String actionPath = JobReader.WORKSPACE.directory() + (action.directory().isEmpty() ? "" : "/" + action.directory());
        Map<String, RunValue> base = new LinkedHashMap<>();
        values.runContexts().forEach((context, tree) -> {
            if (List.of("github", "runner", "job", "env", "vars").contains(context)) {
                base.put(context, tree);
            }
        });
        if (base.get("github") instanceof RunValue.Entries github) {
            Map<String, RunValue> entries = new LinkedHashMap<>(github.entries());
            entries.put("action_path", new RunValue.Known(Value.of(actionPath)));
            base.put("github", new RunValue.Entries(entries));
        }
        base.put("steps", new RunValue.Steps(actionScope));
        Variables given = inputs(action, map.entries().get("with"), path + ".with");
        ActionInputs inputs = ActionInputs.of(action, given, ReadTime.forAction(action.fields(), problems, base, Set.of()),
                values, input -> fields.error(usesNode.at(), path + ".with", "the action's input '" + input + "' is required"
                        + " and has no default"));
        if (action.javascript() != null) {
            LocalActions.JavaScript js = action.javascript();
            if ((js.pre() != null || js.post() != null) && composite()) {
                throw fields.error(usesNode.at(), path + ".uses", "'" + uses + "' has a 'pre' or 'post' step, which is not"
                        + " carried out yet for an action used by a composite action");
            }
            // its post step reads its outcome and state by id: a name no file can give when it has none
            JavaScriptStep.Caller named = js.post() != null && callerId == null ? caller.withId("-" + (index + 1)) : caller;
            String preId = js.pre() == null ? null : "-pre-" + (index + 1);
            Step main = JavaScriptStep.of(named, actionPath, js, new Variables(inputs.values(), given.secrets()), around,
                    composite() ? around.known() : Map.of(), JobContexts.factVariables(values.runContexts()), scope, preId);
            if (preId != null) {
                pres.add(JavaScriptStep.pre(main, preId, actionPath, js));
            }
            if (js.post() != null) {
                posts.add(JavaScriptStep.post(main, actionPath, js, values.runContexts()));
            }
            return List.of(main);
        }
        base.put("inputs", new RunValue.Entries(inputs.context()));
        ReadTime actionValues = ReadTime.forAction(action.fields(), problems, base, inputs.secret());
        Map<String, Computed> variables = new LinkedHashMap<>(around.values());
        variables.putAll(env.values());
        variables.put("GITHUB_ACTION_PATH", new Computed.Text(actionPath));
        Set<String> secrets = new LinkedHashSet<>(around.secrets());
        secrets.addAll(env.secrets());
        secrets.addAll(given.secrets());
        List<Step> steps = new ArrayList<>(new StepReader(action.fields(), problems, actionValues, RunDefaults.NONE,
                new Variables(variables, secrets), actions.nested(), new CheckoutStep(action.fields(), problems, actionValues),
                actionScope, callerName + " / ")
                .read(action.steps(), "runs.steps"));
        // the caller's condition reads only what stays the same, so asking it at each of the
        // action's steps answers as GitHub's one asking before the action starts
        if (guard != null) {
            steps.replaceAll(step -> step.guardedBy(guard));
        }
        if (callerId == null) {
            return steps;
        }
        Map<String, Computed> outputs = new LinkedHashMap<>();
        for (Map.Entry<String, Node> output : action.outputs().entrySet()) {
            outputs.put(output.getKey(), actionValues.later(output.getValue(), YamlTree.child("outputs", output.getKey())
                    + ".value", "a value", ReadTime.Use.HANDED_ON));
        }
        Computed.Evaluated end = actionValues.ended();
        steps.add(new Step(callerName, end.text(), null, List.of(), Map.of(), null, null, false, StepCondition.ALWAYS,
                Shells.SH, Map.of(), null, callerId, new Deferred(null, end, guard), scope, outputs));
        return steps;
    }

    /** The inputs a step gives its local action ({@code with}), each one the action declares. */
    private Variables inputs(LocalActions.Action action, @Nullable Entry with, String path) throws WorkflowException {
        if (with == null) {
            return Variables.NONE;
        }
        MapNode map = fields.map(with.value(), path, "a map of the action's inputs");
        Map<String, Computed> given = new LinkedHashMap<>();
        Set<String> secrets = new LinkedHashSet<>();
        for (Entry input : map.entries().values()) {
            String inputPath = YamlTree.child(path, input.key());
            if (!action.inputs().containsKey(input.key())) {
                throw fields.error(input.keyAt(), inputPath, "the action declares no input '" + input.key() + "' (it has: "
                        + (action.inputs().isEmpty() ? "none" : String.join(", ", action.inputs().keySet())) + ")");
            }
            Computed value = input.value().kind() == YamlTree.Kind.NULL ? new Computed.Text("")
                    : values.later(input.value(), inputPath, "a value", ReadTime.Use.PAYLOAD);
            secrets.addAll(values.secretsOf(value, input.value(), inputPath));
            given.put(input.key(), value);
        }
        return new Variables(given, secrets);
    }

    /** The text as written, with the expressions the run evaluates still in it. */
    private static String text(Computed value) {
        return switch (value) {
            case Computed.Text t -> t.value();
            case Computed.Evaluated e -> e.text();
            default -> throw new IllegalStateException("a script is text or an expression");
        };
    }

    private static String firstLine(String script) {
        String line = script.strip().lines().findFirst().orElse("");
        return line.length() > 80 ? line.substring(0, 80) : line;
    }
}
