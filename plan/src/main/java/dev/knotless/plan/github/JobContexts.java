package dev.knotless.plan.github;

import dev.knotless.plan.Computed;
import dev.knotless.plan.Input;
import dev.knotless.plan.RunFact;
import dev.knotless.plan.RunValue;
import dev.knotless.plan.RunValue.Entries;
import dev.knotless.plan.RunValue.Fact;
import dev.knotless.plan.RunValue.Known;
import dev.knotless.plan.Step;
import dev.knotless.plan.expression.Contexts;
import dev.knotless.plan.expression.Expression;
import dev.knotless.plan.expression.Value;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * GitHub's contexts as the run fills them in ({@link RunValue}): {@code github}, {@code runner}
 * and {@code job} as trees of the runner's facts and of values the file decides, {@code env},
 * {@code secrets} and {@code steps} as whole facts, and the combination's {@code matrix} and
 * {@code strategy} as they were read, {@code inputs} as the manual run's variables of the inputs
 * the workflow declares, each read as its type, {@code needs} as the jobs the job needs (each the
 * runs of its workflow group). Also the variables every GitHub step expects that name a
 * fact ({@code GITHUB_SHA}), and those the file decides ({@code GITHUB_WORKFLOW}).
 *
 * <p>The trees are closed: a property none of their entries names ({@code github.event.pull_request},
 * {@code runner.debug}) is refused when the file is read, so null never stands for a feature left out.
 */
final class JobContexts {

    /** The runner's events by GitHub's names; push and schedule are spelled alike. */
    static final Map<String, String> EVENT_NAMES = Map.of("pull", "pull_request", "manual", "workflow_dispatch", "batch",
            "merge_group");
    static final String TOOL_CACHE = "/tmp/toolcache";

    private JobContexts() {}

    /**
     * The contexts of a job ({@code job} null: of the workflow's own fields) with {@code decided}
     * (matrix, strategy) as read.
     */
    static Map<String, RunValue> of(String workflowName, @Nullable String job, Map<String, Input> inputs,
            Map<String, String> needs, Map<String, Value> decided) {
        Map<String, RunValue> github = new LinkedHashMap<>();
        github.put("sha", new Fact(RunFact.COMMIT));
        github.put("ref", new Fact(RunFact.REF));
        github.put("ref_name", new Fact(RunFact.REF_NAME));
        github.put("ref_type", new Fact(RunFact.REF_TYPE));
        github.put("event_name", new Fact(RunFact.EVENT, EVENT_NAMES));
        github.put("repository", new Fact(RunFact.REPOSITORY));
        github.put("repository_owner", new Fact(RunFact.REPOSITORY_OWNER));
        github.put("server_url", new Fact(RunFact.SERVER_URL));
        github.put("run_id", new Fact(RunFact.RUN_ID));
        github.put("event", new Entries(event(inputs)));
        github.put("workflow", new Known(Value.of(workflowName)));
        if (job != null) {
            github.put("job", new Known(Value.of(job)));
        }
        github.put("workspace", new Known(Value.of(JobReader.WORKSPACE.directory())));
        Map<String, RunValue> runner = new LinkedHashMap<>();
        runner.put("os", new Known(Value.of("Linux")));
        runner.put("arch", new Fact(RunFact.ARCH));
        runner.put("temp", new Known(Value.of("/tmp")));
        runner.put("tool_cache", new Known(Value.of(TOOL_CACHE)));
        runner.put("name", new Known(Value.of("knotless")));
        runner.put("environment", new Known(Value.of("self-hosted")));
        Map<String, RunValue> all = new LinkedHashMap<>();
        all.put("github", new Entries(github));
        all.put("runner", new Entries(runner));
        all.put("job", new Entries(Map.of("status", new Fact(RunFact.STATUS))));
        all.put("env", new Fact(RunFact.ENVIRONMENT));
        all.put("secrets", new Fact(RunFact.SECRETS));
        all.put("vars", new Fact(RunFact.CONFIGURATION));
        all.put("steps", new RunValue.Steps(Step.JOB));
        Map<String, RunValue> declared = new LinkedHashMap<>();
        inputs.forEach((name, input) -> declared.put(name, new RunValue.Variable(input.variable(), input.kind())));
        all.put("inputs", new Entries(declared));
        Map<String, RunValue> needed = new LinkedHashMap<>();
        needs.forEach((id, group) -> needed.put(id, new RunValue.Needed(group)));
        all.put("needs", new Entries(needed));
        decided.forEach((name, value) -> all.put(name, new Known(value)));
        return all;
    }

    /**
     * What this runner knows of the event's payload: the repository, and a manual run's inputs as
     * text (GitHub's {@code github.event.inputs}, older than the typed {@code inputs}; null in a run
     * of another event). The rest of GitHub's payload is refused where a file reads it.
     */
    private static Map<String, RunValue> event(Map<String, Input> inputs) {
        Map<String, RunValue> given = new LinkedHashMap<>();
        inputs.forEach((name, input) -> given.put(name, new RunValue.Variable(input.variable(), Input.Kind.TEXT)));
        Map<String, RunValue> repository = new LinkedHashMap<>();
        repository.put("full_name", new Fact(RunFact.REPOSITORY));
        repository.put("name", new Fact(RunFact.REPOSITORY_NAME));
        repository.put("owner", new Entries(Map.of("login", new Fact(RunFact.REPOSITORY_OWNER))));
        repository.put("default_branch", new Fact(RunFact.DEFAULT_BRANCH));
        Map<String, RunValue> event = new LinkedHashMap<>();
        event.put("inputs", new Entries(given));
        event.put("repository", new Entries(repository));
        return event;
    }

    /** The variables of every step that name a fact, each read from {@code contexts} as it starts. */
    static Map<String, Computed> factVariables(Map<String, RunValue> contexts) {
        Map<String, Computed> variables = new LinkedHashMap<>();
        for (String key : new String[] {"sha", "ref", "ref_name", "ref_type", "event_name", "repository",
                "repository_owner", "server_url", "run_id"}) {
            variables.put("GITHUB_" + key.toUpperCase(Locale.ROOT), read(contexts, "github", key));
        }
        variables.put("RUNNER_ARCH", read(contexts, "runner", "arch"));
        return variables;
    }

    /** The variables of a job the file decides, which its steps' own override. */
    static Map<String, String> knownVariables(String workflowName, String job) {
        Map<String, String> variables = new LinkedHashMap<>();
        variables.put("GITHUB_ACTIONS", "true");
        variables.put("GITHUB_WORKFLOW", workflowName);
        variables.put("GITHUB_JOB", job);
        variables.put("GITHUB_WORKSPACE", JobReader.WORKSPACE.directory());
        variables.put("RUNNER_OS", "Linux");
        variables.put("RUNNER_TEMP", "/tmp");
        variables.put("RUNNER_TOOL_CACHE", TOOL_CACHE);
        variables.put("RUNNER_NAME", "knotless");
        variables.put("RUNNER_ENVIRONMENT", "self-hosted");
        return variables;
    }

    private static Computed read(Map<String, RunValue> contexts, String context, String key) {
        Expression path = new Expression.Index(new Expression.Context(context, 0),
                new Expression.Literal(Value.of(key), 0), 0);
        return new Computed.Evaluated(path, context + "." + key, contexts);
    }

    /** What the file decides of {@code decided}: the contexts of {@link ReadTime#NOW}. */
    static Map<String, Value> decided(Contexts decided) {
        Map<String, Value> values = new LinkedHashMap<>();
        for (String name : ReadTime.NOW) {
            Value value = decided.get(name);
            if (value != null) {
                values.put(name, value);
            }
        }
        return values;
    }

    /** {@code matrix} (when the job has one) and {@code strategy} of combination {@code index} of {@code strategy}. */
    static Contexts strategy(Map<String, Node> combination, MatrixReader.Strategy strategy,
            int index) {
        Map<String, Value> matrix = new LinkedHashMap<>();
        combination.forEach((key, node) -> matrix.put(key, value(node)));
        int total = strategy.combinations().size();
        Map<String, Value> strategyValues = new LinkedHashMap<>();
        strategyValues.put("fail-fast", Value.of(strategy.failFast()));
        strategyValues.put("job-index", Value.of(index));
        strategyValues.put("job-total", Value.of(total));
        strategyValues.put("max-parallel", Value.of(strategy.maxParallel() == 0 ? total : strategy.maxParallel()));
        Map<String, Value> all = new LinkedHashMap<>();
        if (strategy.hasMatrix()) {
            all.put("matrix", Value.object(matrix));
        }
        all.put("strategy", Value.object(strategyValues));
        return Contexts.of(all);
    }

    /** A YAML value as an expression's: numbers and booleans as GitHub reads them from the file. */
    static Value value(Node node) {
        return switch (node) {
            case Scalar s -> switch (s.kind()) {
                case NULL -> Value.NULL;
                case BOOLEAN -> Value.of(s.text().equalsIgnoreCase("true"));
                case NUMBER -> number(s.text());
                default -> Value.of(s.text());
            };
            case ListNode l -> Value.array(l.items().stream().map(JobContexts::value).toList());
            case MapNode m -> {
                Map<String, Value> entries = new LinkedHashMap<>();
                m.entries().values().forEach(e -> entries.put(e.key(), value(e.value())));
                yield Value.object(entries);
            }
        };
    }

    private static Value number(String text) {
        try {
            return Value.of(Double.parseDouble(text.replace("_", "")));
        } catch (NumberFormatException e) {
            return Value.of(text);
        }
    }
}
