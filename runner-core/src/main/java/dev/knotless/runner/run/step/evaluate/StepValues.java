package dev.knotless.runner.run.step.evaluate;

import dev.knotless.checks.StepResult;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.StepStatus;
import dev.knotless.plan.Computed;
import dev.knotless.plan.Input;
import dev.knotless.plan.RunFact;
import dev.knotless.plan.RunValue;
import dev.knotless.plan.Step;
import dev.knotless.plan.expression.Contexts;
import dev.knotless.plan.expression.Evaluator;
import dev.knotless.plan.expression.ExpressionException;
import dev.knotless.plan.expression.Functions;
import dev.knotless.plan.expression.HostFunction;
import dev.knotless.plan.expression.Value;
import dev.knotless.runner.run.request.NeededRun;
import dev.knotless.secrets.Grants;
import dev.knotless.secrets.Secret;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one step is about to start with, worked out from what the run knows by then: whether its
 * deferred condition holds, its computed variables, its name and script. One per step start.
 *
 * <p>The contexts are the front-end's trees ({@link RunValue}) with their facts filled in here: the
 * request's ({@link RunFacts}), and {@link RunValue.Steps} (the steps of a scope before with an id: their
 * outputs, outcome and conclusion), {@link RunFact#ENVIRONMENT}, {@link RunFact#SECRETS} (what
 * this step was granted) and {@link RunFact#STATUS}. The environment a step's {@code if} reads is
 * the run's variables and what the steps before handed back, as GitHub's runner evaluates a step's
 * condition before its own variables; its variables read that too, and its name and script also
 * its own variables, except those computed from secrets, which never become text.
 */
public final class StepValues {

    private final RunFacts facts;
    private final List<Step> steps;
    private final List<StepResult> ended;
    private final Handed handed;
    private final Grants.Granted granted;
    private final Map<String, String> runVariables;
    private final RunStatus status;
    private final WorkspaceFiles workspace;

    /**
     * @param steps the run's steps, by number from 1
     * @param ended the results of the steps before this one, in order
     * @param runVariables the variables every step of the run gets
     * @param workspace what {@code hashFiles} reads
     */
    public StepValues(RunFacts facts, List<Step> steps, List<StepResult> ended, Handed handed, Grants.Granted granted,
            Map<String, String> runVariables, RunStatus status, WorkspaceFiles workspace) {
        this.facts = facts;
        this.steps = steps;
        this.ended = ended;
        this.handed = handed;
        this.granted = granted;
        this.runVariables = runVariables;
        this.status = status;
        this.workspace = workspace;
    }

    /** Why a step could not be started: which of its parts, as written, and what the expression said. */
    public static final class Unresolved extends Exception {
        Unresolved(String part, String text, ExpressionException cause) {
            super("its " + part + " '" + text + "' could not be evaluated: " + cause.getMessage(), cause);
        }
    }

    /** Whether {@code step}'s deferred condition holds (true when it has none). */
    public boolean runs(Step step) throws Unresolved {
        Computed when = step.deferred().when();
        return when == null || truthy(when, "condition", baseEnvironment());
    }

    /** Whether {@code condition} holds (truthy) over the run's variables: a run's condition, before its first step. */
    public boolean holds(Computed condition) throws Unresolved {
        return truthy(condition, "condition", baseEnvironment());
    }

    /**
     * {@code step}'s computed variables, as it starts: with what the steps it reads the state of
     * saved, as {@code STATE_NAME} (the stages of GitHub's JavaScript actions).
     */
    public Map<String, String> computed(Step step) throws Unresolved {
        Map<String, String> environment = new LinkedHashMap<>(baseEnvironment());
        environment.putAll(step.env());
        Map<String, String> values = new LinkedHashMap<>();
        for (String from : step.deferred().stateFrom()) {
            for (int i = 0; i < ended.size() && i < steps.size(); i++) {
                if (from.equals(steps.get(i).id()) && steps.get(i).scope().equals(step.scope())) {
                    handed.stateOf(i + 1).forEach((name, value) -> values.put("STATE_" + name, value));
                }
            }
        }
        for (Map.Entry<String, Computed> entry : step.computedEnv().entrySet()) {
            values.put(entry.getKey(), text(entry.getValue(), "variable " + entry.getKey(), environment));
        }
        return values;
    }

    /**
     * {@code step} with its deferred name and script worked out, given its {@code computed}
     * variables; the step as it is when nothing of it was deferred.
     */
    public Step resolved(Step step, Map<String, String> computed) throws Unresolved {
        if (step.deferred().name() == null && step.deferred().run() == null) {
            return step;
        }
        Map<String, String> environment = new LinkedHashMap<>(baseEnvironment());
        environment.putAll(step.env());
        step.computedEnv().forEach((name, value) -> {
            if (!readsSecrets(value)) {
                environment.put(name, computed.get(name));
            }
        });
        String name = step.deferred().name() == null ? step.name() : text(step.deferred().name(), "name", environment);
        String run = step.deferred().run() == null ? step.run() : text(step.deferred().run(), "script", environment);
        return step.resolved(name.isBlank() ? step.name() : name, run);
    }

    private Map<String, String> baseEnvironment() {
        Map<String, String> environment = new LinkedHashMap<>(runVariables);
        environment.putAll(handed.environment());
        return environment;
    }

    private boolean truthy(Computed value, String part, Map<String, String> environment) throws Unresolved {
        if (value instanceof Computed.Evaluated e) {
            return evaluate(e, part, environment).isTruthy();
        }
        if (value instanceof Computed.All all) {
            for (Computed condition : all.conditions()) {
                if (!truthy(condition, part, environment)) {
                    return false;
                }
            }
            return true;
        }
        return Value.of(text(value, part, environment)).isTruthy();
    }

    private String text(Computed value, String part, Map<String, String> environment) throws Unresolved {
        return switch (value) {
            case Computed.Text t -> t.value();
            case Computed.StepOutput o -> handed.outputsOf(o.step()).getOrDefault(o.name(), "");
            case Computed.Joined j -> {
                StringBuilder joined = new StringBuilder();
                for (Computed p : j.parts()) {
                    joined.append(text(p, part, environment));
                }
                yield joined.toString();
            }
            case Computed.Evaluated e -> evaluate(e, part, environment).asString();
            case Computed.All all -> String.valueOf(truthy(all, part, environment));
            case Computed.FilesHash f -> {
                try {
                    yield workspace.hashFiles(f.patterns());
                } catch (ExpressionException x) {
                    throw new Unresolved(part, "hashFiles of " + String.join(", ", f.patterns()), x);
                }
            }
        };
    }

    private Value evaluate(Computed.Evaluated e, String part, Map<String, String> environment) throws Unresolved {
        Contexts contexts = name -> {
            RunValue tree = e.contexts().get(name);
            return tree == null ? null : value(tree, environment);
        };
        try {
            return new Evaluator(contexts, this::call).evaluate(e.expression());
        } catch (ExpressionException x) {
            throw new Unresolved(part, e.text(), x);
        } catch (UnresolvedInside x) {
            throw new Unresolved(part, e.text(), new ExpressionException(x.getMessage(), -1));
        }
    }

    /**
     * A value read inside another's evaluation (a local action's input): its own failure becomes
     * the reading expression's, through the unchecked wrapper the evaluator passes on.
     */
    private Value evaluateQuietly(Computed.Evaluated e, Map<String, String> environment) {
        try {
            return evaluate(e, "input", environment);
        } catch (Unresolved x) {
            throw new UnresolvedInside(x);
        }
    }

    private String textQuietly(Computed value, Map<String, String> environment) {
        try {
            return text(value, "input", environment);
        } catch (Unresolved x) {
            throw new UnresolvedInside(x);
        }
    }

    /** An {@link Unresolved} met while filling a context in, carried out of the evaluator. */
    private static final class UnresolvedInside extends RuntimeException {
        UnresolvedInside(Unresolved cause) {
            super(cause.getMessage(), cause);
        }
    }

    private Value call(String function, List<Value> arguments) throws ExpressionException {
        if (function.equalsIgnoreCase(HostFunction.SUCCESS.name())) {
            return Value.of(status.success());
        }
        if (function.equalsIgnoreCase(HostFunction.FAILURE.name())) {
            return Value.of(status.failure());
        }
        if (function.equalsIgnoreCase(HostFunction.ALWAYS.name())) {
            return Value.of(true);
        }
        if (function.equalsIgnoreCase(HostFunction.CANCELLED.name())) {
            return Value.of(status.cancelled());
        }
        if (function.equalsIgnoreCase(HostFunction.HASH_FILES.name())) {
            List<String> patterns = new ArrayList<>();
            for (Value argument : arguments) {
                patterns.add(argument.asString());
            }
            return Value.of(workspace.hashFiles(patterns));
        }
        throw new ExpressionException(function + "() is not computed by this runner", -1);
    }

    private Value value(RunValue tree, Map<String, String> environment) {
        return switch (tree) {
            case RunValue.Known k -> k.value();
            case RunValue.Entries entries -> {
                Value.ObjectValue.Builder object = Value.ObjectValue.builder();
                entries.entries().forEach((name, entry) -> object.put(name, value(entry, environment)));
                yield object.build();
            }
            case RunValue.Fact f -> fact(f, environment);
            case RunValue.Variable v -> variable(runVariables.get(v.name()), v.kind());
            case RunValue.Needed n -> needed(n.group());
            case RunValue.Steps st -> stepsBefore(st.scope());
            case RunValue.Later later -> later.value() instanceof Computed.Evaluated e ? evaluateQuietly(e, environment)
                    : Value.of(textQuietly(later.value(), environment));
        };
    }

    /**
     * The runs of {@code group} the run needed: {@code result} {@code success} when all passed,
     * {@code skipped} when all were, else {@code cancelled} when one was, else {@code failure}; {@code outputs} one after another,
     * a later run's value over an earlier's; null when it needed none of them.
     */
    private Value needed(String group) {
        List<NeededRun> runs = facts.needed().stream().filter(r -> r.group().equals(group)).toList();
        if (runs.isEmpty()) {
            return Value.NULL;
        }
        Map<String, String> outputs = new LinkedHashMap<>();
        runs.forEach(r -> outputs.putAll(r.outputs()));
        String result = runs.stream().allMatch(r -> r.status() == CheckStatus.SUCCESS) ? "success"
                : runs.stream().allMatch(r -> r.status() == CheckStatus.SKIPPED) ? "skipped"
                : runs.stream().anyMatch(r -> r.status() == CheckStatus.CANCELLED) ? "cancelled" : "failure";
        return Value.object(Map.of("result", Value.of(result), "outputs", strings(outputs)));
    }

    /** {@code value} as text, worked out here: a name shown on the check ({@code part} names it in an error). */
    public String text(Computed value, String part) throws Unresolved {
        return text(value, part, baseEnvironment());
    }

    /**
     * What the run hands to the runs that need it, worked out after its last step ({@code this} made
     * for the place after it): each value by name; one that could not be worked out is left out
     * and said in {@code leftOut}, by name.
     */
    public Map<String, String> handedOn(Map<String, Computed> outputs, Map<String, String> leftOut) {
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, Computed> output : outputs.entrySet()) {
            try {
                values.put(output.getKey(), text(output.getValue(), "output " + output.getKey(), baseEnvironment()));
            } catch (Unresolved e) {
                leftOut.put(output.getKey(), e.getMessage());
            }
        }
        return values;
    }

    /** A run variable read as {@code kind}: a boolean is {@code true} only as that word, as GitHub's inputs are. */
    private static Value variable(@Nullable String text, Input.Kind kind) {
        if (text == null) {
            return Value.NULL;
        }
        return switch (kind) {
            case TEXT -> Value.of(text);
            case BOOLEAN -> Value.of(text.strip().equalsIgnoreCase("true"));
            case NUMBER -> Value.of(Value.of(text).asNumber());
        };
    }

    private Value fact(RunValue.Fact f, Map<String, String> environment) {
        return switch (f.fact()) {
            case ENVIRONMENT -> strings(environment);
            case SECRETS -> {
                Map<String, String> secrets = new LinkedHashMap<>();
                for (Secret secret : granted.secrets()) {
                    secrets.put(secret.name(), secret.value());
                }
                yield strings(secrets);
            }
            case CONFIGURATION -> strings(facts.configuration());
            case STATUS -> Value.of(status.word());
            default -> {
                String text = facts.get(f.fact());
                yield Value.of(f.renames().getOrDefault(text, text));
            }
        };
    }

    /** The steps of {@code scope} before with an id: {@code outputs}, {@code outcome} and {@code conclusion} of each. */
    private Value stepsBefore(String scope) {
        Value.ObjectValue.Builder all = Value.ObjectValue.builder();
        for (int i = 0; i < ended.size() && i < steps.size(); i++) {
            String id = steps.get(i).id();
            if (id == null || !steps.get(i).scope().equals(scope)) {
                continue;
            }
            StepResult result = ended.get(i);
            String outcome = outcome(result.status());
            all.put(id, Value.object(Map.of(
                    "outputs", strings(handed.outputsOf(i + 1)),
                    "outcome", Value.of(outcome),
                    "conclusion", Value.of(result.continuedOnError() ? "success" : outcome))));
        }
        return all.build();
    }

    private static String outcome(StepStatus status) {
        return switch (status) {
            case SUCCESS -> "success";
            case FAILURE, ERROR -> "failure";
            case CANCELLED -> "cancelled";
            case SKIPPED -> "skipped";
        };
    }

    private static Value strings(Map<String, String> values) {
        Value.ObjectValue.Builder object = Value.ObjectValue.builder();
        values.forEach((name, value) -> object.put(name, Value.of(value)));
        return object.build();
    }

    private static boolean readsSecrets(Computed value) {
        return switch (value) {
            case Computed.Evaluated e -> readsSecretFact(e);
            case Computed.Joined j -> j.parts().stream().anyMatch(StepValues::readsSecrets);
            case Computed.All all -> all.conditions().stream().anyMatch(StepValues::readsSecrets);
            default -> false;
        };
    }

    /** Whether {@code e} reads a context that the front-end's tree says is the fact of secrets. */
    private static boolean readsSecretFact(Computed.Evaluated e) {
        for (String name : e.expression().contexts()) {
            if (e.contexts().get(name) instanceof RunValue.Fact f && f.fact() == RunFact.SECRETS) {
                return true;
            }
        }
        return false;
    }
}
