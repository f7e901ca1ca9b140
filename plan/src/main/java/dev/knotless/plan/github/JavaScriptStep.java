package dev.knotless.plan.github;

import dev.knotless.executor.Environment;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.ShellPayload;
import dev.knotless.plan.BroughtRuntime;
import dev.knotless.plan.Computed;
import dev.knotless.plan.Deferred;
import dev.knotless.plan.RunValue;
import dev.knotless.plan.expression.Condition;
import dev.knotless.plan.expression.ExpressionException;
import dev.knotless.plan.Step;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A step that uses a local JavaScript action ({@code runs.using: node20} or {@code node24}): one
 * step that runs the action's {@code main} on the Node the runner brings into the run ({@link
 * BroughtRuntime}, under {@link RunLayout#RUNTIMES}), as GitHub's runner runs it on its own
 * Node, with each input as {@code INPUT_NAME} (upper case, spaces as {@code _}: what {@code
 * @actions/core}'s {@code getInput} reads) and {@code GITHUB_ACTION_PATH}. What the action hands
 * back (outputs, variables, masks, its summary) goes through the step files and workflow commands
 * every step has, so its outputs are this step's, read by the caller's id. Its {@code pre} and
 * {@code post}, when it has them, are steps of their own ({@link #pre}, {@link #post}) that the job
 * runs before and after its steps; the three share what they save ({@code GITHUB_STATE}).
 */
final class JavaScriptStep {

    /** Where the brought Node is in every run. */
    static final String NODE = RunLayout.RUNTIMES + "/node/bin/node";

    private JavaScriptStep() {}

    /** What the calling step says of itself, beside the action it uses. */
    record Caller(String name, @Nullable String id, ReadTime.When when, boolean continueOnError, @Nullable Duration timeout,
            @Nullable String workingDirectory, Variables env) {

        Caller withId(String newId) {
            return new Caller(name, newId, when, continueOnError, timeout, workingDirectory, env);
        }
    }

    /**
     * The step that runs {@code main}'s {@code post} file: after the job's steps (the reader puts
     * it there), when the action's {@code post-if} says so and {@code main} ran (passed or failed),
     * with what {@code main} saved ({@code GITHUB_STATE}) as {@code STATE_NAME}.
     *
     * @param main the action's step, with an id to read its outcome and state by
     * @param contexts the contexts of the job's steps, over which the run asks whether main ran
     */
    static Step post(Step main, String actionPath, LocalActions.JavaScript js, Map<String, RunValue> contexts) {
        String id = java.util.Objects.requireNonNull(main.id(), "the main step of an action with a post step has an id");
        String ran = "steps['" + id + "'].outcome == 'success' || steps['" + id + "'].outcome == 'failure'";
        Computed.Evaluated mainRan;
        try {
            mainRan = new Computed.Evaluated(Condition.parse(ran, ReadTime.SCOPE).expression(), ran, contexts);
        } catch (ExpressionException e) {
            throw new IllegalStateException("the runner's own expression does not parse", e);
        }
        String script = "exec " + NODE + " " + ShellPayload.quote(actionPath + "/" + js.post());
        List<String> state = new java.util.ArrayList<>(main.deferred().stateFrom());
        state.add(id);
        return new Step("Post " + main.name(), script, main.timeout(), main.secrets(), main.env(), main.workingDirectory(), null,
                main.continueOnError(), js.postIf(), main.shell(), main.computedEnv(), main.runtime(), null,
                new Deferred(null, null, mainRan, state), main.scope(), Map.of());
    }

    /**
     * The step that runs {@code main}'s {@code pre} file: before the job's steps (the reader puts
     * it there, in the order of the actions), when the action's {@code pre-if} says so over the
     * job's status (not the calling step's {@code if}, which GitHub's runner does not ask either),
     * as {@code preId}, the id {@code main} reads its state by.
     */
    static Step pre(Step main, String preId, String actionPath, LocalActions.JavaScript js) {
        String script = "exec " + NODE + " " + ShellPayload.quote(actionPath + "/" + js.pre());
        return new Step("Pre " + main.name(), script, main.timeout(), main.secrets(), main.env(), main.workingDirectory(), null,
                main.continueOnError(), js.preIf(), main.shell(), main.computedEnv(), main.runtime(), preId,
                Deferred.NONE, main.scope(), Map.of());
    }

    /**
     * The step that runs {@code main}.
     *
     * @param actionPath the action's directory in the run
     * @param inputs each input's value, given or its default, by the name the action declares
     * @param around the workflow's, job's (or calling action's) variables and the secrets they read
     * @param known the variables the step gets as its own, decided now (a composite's caller's)
     * @param preId the id of its {@code pre} step, whose state it gets; null when it has none
     */
    static Step of(Caller caller, String actionPath, LocalActions.JavaScript js, Variables inputs, Variables around,
            Map<String, String> known, Map<String, Computed> facts, String scope, @Nullable String preId) {
        Map<String, Computed> computed = new LinkedHashMap<>(facts);
        around.computed().forEach((name, value) -> {
            if (!caller.env().values().containsKey(name)) {
                computed.put(name, value);
            }
        });
        computed.putAll(caller.env().computed());
        Map<String, String> own = new LinkedHashMap<>(known);
        own.keySet().removeAll(caller.env().values().keySet());
        own.putAll(caller.env().known());
        List<String> renames = new java.util.ArrayList<>();
        inputs.values().forEach((name, value) -> {
            String variable = "INPUT_" + name.replace(' ', '_').toUpperCase(Locale.ROOT);
            if (!Environment.isName(variable)) {
                // GitHub's runner hands INPUT_NODE-VERSION as it is; here it travels under a shell
                // name and the brought Node renames it before the action starts (BroughtRuntime.RENAMES)
                String carried = "KNOTLESS_INPUT_" + (renames.size() + 1);
                renames.add(carried + "=" + variable);
                variable = carried;
            }
            if (value instanceof Computed.Text t) {
                own.put(variable, t.value());
            } else {
                computed.put(variable, value);
            }
        });
        own.put("GITHUB_ACTION_PATH", actionPath);
        if (!renames.isEmpty()) {
            own.put(BroughtRuntime.RENAMES, String.join(" ", renames));
        }
        Set<String> secrets = new LinkedHashSet<>(around.secrets());
        secrets.addAll(caller.env().secrets());
        secrets.addAll(inputs.secrets());
        String script = "exec " + NODE + " " + ShellPayload.quote(actionPath + "/" + js.main());
        return new Step(caller.name(), script, caller.timeout(), List.copyOf(secrets), own, caller.workingDirectory(), null,
                caller.continueOnError(), caller.when().gate(), Shells.SH, computed, new BroughtRuntime("node", js.node()),
                caller.id(), new Deferred(null, null, caller.when().also(), preId == null ? List.of() : List.of(preId)), scope,
                Map.of());
    }
}
