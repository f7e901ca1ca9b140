package dev.knotless.plan.github;

import dev.knotless.plan.Computed;
import dev.knotless.plan.Input;
import dev.knotless.plan.RunValue;
import dev.knotless.plan.StepCondition;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.expression.Condition;
import dev.knotless.plan.expression.Contexts;
import dev.knotless.plan.expression.Expression;
import dev.knotless.plan.expression.ExpressionException;
import dev.knotless.plan.expression.Functions;
import dev.knotless.plan.expression.HostFunction;
import dev.knotless.plan.expression.Scope;
import dev.knotless.plan.expression.Template;
import dev.knotless.plan.expression.Value;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.Kind;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A job's values as the file decides them, and what it leaves to the run: each field's text with
 * its expressions parsed against GitHub's contexts; those that read only {@code matrix} and {@code
 * strategy} filled in for one combination; those that read what only the run knows ({@code
 * github}, {@code steps}, ...) left to it as {@link Computed.Evaluated} over the job's contexts
 * ({@link JobContexts}), where the field is one the run computes as a step starts (a step's {@code
 * run}, {@code name}, {@code env} and {@code if}, a job's and the workflow's {@code env}). Anywhere
 * else such an expression fails closed at its field, as do the contexts not computed yet.
 */
final class ReadTime {

    /** GitHub's contexts: a name outside them is a mistake in the file, not a missing feature. */
    static final List<String> CONTEXTS = List.of("github", "env", "vars", "secrets", "inputs", "matrix", "needs", "steps",
            "job", "runner", "strategy");
    static final Scope SCOPE = new Scope(CONTEXTS, List.of(HostFunction.HASH_FILES, HostFunction.SUCCESS,
            HostFunction.FAILURE, HostFunction.ALWAYS, HostFunction.CANCELLED));
    /** What the file alone decides. */
    static final Set<String> NOW = Set.of("matrix", "strategy");
    /** What the run computes as a step starts. */
    static final Set<String> RUN = Set.of("github", "runner", "job", "env", "secrets", "vars", "steps", "inputs",
            "needs");
    /** The variable a step's script reads the value of its {@code n}th expression over secrets from. */
    static final String SECRET_PART = "KNOTLESS_EXPR_";
    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /** Where a field's expressions are evaluated, and so what they may read. */
    enum Use {
        /** Before the run: a job's image, services, runner labels, timeouts, a step's shell and directory. */
        PLANNING,
        /** As a step starts, shown to people: a step's name. */
        SHOWN,
        /** As a step starts, reaching only its own process: a script, a variable. Secrets may be read. */
        PAYLOAD,
        /** As a step starts, deciding whether it runs; the status functions may be called. */
        CONDITION,
        /** After the steps, handed to the runs that need the job: its {@code outputs}. */
        HANDED_ON
    }

    /**
     * A script: its text, decided now or by the run, and the variables that carry the values of
     * its expressions over secrets, which the text names instead of holding them.
     */
    record Script(Computed text, Map<String, Computed> variables, Set<String> secrets) {}

    /**
     * A step's {@code if}: the plan's condition, and what the run evaluates once that let the step
     * go on (null for nothing).
     */
    record When(StepCondition gate, @Nullable Computed also) {}

    private final Fields fields;
    private final Problems problems;
    /** The combination's values; null where there is no matrix to read. */
    private final @Nullable Contexts contexts;
    private final String noMatrix;
    /** Every context, as the run fills it in. */
    private final Map<String, RunValue> runContexts;
    /** What an expression may read where. */
    private final ContextRules rules;

    private ReadTime(Fields fields, Problems problems, @Nullable Contexts contexts, String noMatrix,
            Map<String, RunValue> runContexts, Set<String> secretInputs) {
        this.fields = fields;
        this.problems = problems;
        this.contexts = contexts;
        this.noMatrix = noMatrix;
        this.runContexts = runContexts;
        this.rules = new ContextRules(fields, runContexts, contexts, noMatrix, secretInputs);
    }

    private ReadTime(Fields fields, Problems problems, @Nullable Contexts contexts, String noMatrix,
            Map<String, RunValue> runContexts) {
        this(fields, problems, contexts, noMatrix, runContexts, Set.of());
    }

    /**
     * For the steps of a local action, read from its own file: its contexts ({@code inputs}, its
     * own {@code steps}, no {@code secrets}), of which {@code secretInputs} were given values that
     * read secrets.
     */
    static ReadTime forAction(Fields fields, Problems problems, Map<String, RunValue> contexts, Set<String> secretInputs) {
        return new ReadTime(fields, problems, null, "an action has no matrix", contexts, secretInputs);
    }

    /** The fields' reader, for a local action's file read from this one's. */
    Fields fields() {
        return fields;
    }

    /** For the fields of the workflow {@code name} with manual {@code inputs}, which no matrix reaches. */
    static ReadTime fileLevel(Fields fields, Problems problems, String name, Map<String, Input> inputs) {
        return new ReadTime(fields, problems, null, "a workflow's fields are read before any job's matrix",
                JobContexts.of(name, null, inputs, Map.of(), Map.of()));
    }

    /**
     * For one combination ({@code index} of its strategy's) of the job {@code job} of the workflow
     * {@code name}, which needs {@code needs} (job ids and the groups of their runs).
     */
    ReadTime(Fields fields, Problems problems, Map<String, Node> combination, MatrixReader.Strategy strategy, int index,
            String name, String job, Map<String, Input> inputs, Map<String, String> needs) {
        this(fields, problems, JobContexts.strategy(combination, strategy, index), "the job has no matrix",
                JobContexts.of(name, job, inputs, needs, JobContexts.decided(JobContexts.strategy(combination, strategy, index))));
    }

    /** The contexts the job's ones are. */
    Map<String, RunValue> runContexts() {
        return runContexts;
    }

    /** A scalar's text, its expressions filled in: a field read before the run starts. */
    String text(Node node, String path, String expected) throws WorkflowException {
        String raw = fields.string(node, path, expected);
        if (!raw.contains("${{")) {
            return raw;
        }
        Template template = template(raw, node, path);
        rules.check(template.expression(), Use.PLANNING, node, path);
        return now(template, node, path);
    }

    /**
     * A scalar's text as a step starts ({@code use} {@link Use#SHOWN} or {@link Use#PAYLOAD}):
     * filled in now when the file decides it, else left to the run.
     */
    Computed later(Node node, String path, String expected, Use use) throws WorkflowException {
        String raw = fields.string(node, path, expected);
        if (!raw.contains("${{")) {
            return new Computed.Text(raw);
        }
        Template template = template(raw, node, path);
        Set<String> read = rules.check(template.expression(), use, node, path);
        if (rules.decidedNow(template.expression())) {
            return new Computed.Text(now(template, node, path));
        }
        return new Computed.Evaluated(template.expression(), raw, runContexts);
    }

    /**
     * A step's script: as {@link #later}, except that each expression over {@code secrets} is not
     * pasted into the text but read from a variable of the step's own ({@value #SECRET_PART}N),
     * which the text names as {@code ${NAME}}; so a shell's script can, others cannot read them.
     */
    Script script(Node node, String path, boolean shellScript) throws WorkflowException {
        String raw = fields.string(node, path, "a script");
        if (!raw.contains("${{")) {
            return new Script(new Computed.Text(raw), Map.of(), Set.of());
        }
        Template template = template(raw, node, path);
        Map<String, Computed> variables = new LinkedHashMap<>();
        Set<String> secrets = new LinkedHashSet<>();
        StringBuilder text = new StringBuilder();
        int from = 0;
        for (Template.Part part : template.parts()) {
            if (part instanceof Template.Embedded e && readsSecrets(e.expression())) {
                if (!shellScript) {
                    throw fields.error(node.at(), path, "reads 'secrets' in the script of a shell other than bash or sh;"
                            + " pass the secret through the step's 'env' and read the variable instead");
                }
                secrets.addAll(rules.check(e.expression(), Use.PAYLOAD, node, path).contains("secrets")
                        ? rules.secretNames(e.expression(), node, path) : Set.of());
                // an input that reads secrets is granted to every step of its action already
                String name = SECRET_PART + (variables.size() + 1);
                variables.put(name, new Computed.Evaluated(e.expression(), raw.substring(e.offset(), e.end()), runContexts));
                text.append(raw, from, e.offset()).append("${").append(name).append('}');
                from = e.end();
            }
        }
        text.append(raw.substring(from));
        Node rewritten = new Scalar(Kind.STRING, text.toString(), node.at());
        return new Script(later(rewritten, path, "a script", Use.PAYLOAD), variables, secrets);
    }

    /** A name shown to people: one line, not blank, once its expressions are filled in. */
    String label(Node node, String path) throws WorkflowException {
        return label(text(node, path, "a name"), node, path);
    }

    /** A step's name: a {@link #label} when the file decides it, else left to the run. */
    Computed name(Node node, String path) throws WorkflowException {
        Computed name = later(node, path, "a name", Use.SHOWN);
        if (name instanceof Computed.Text t) {
            label(t.value(), node, path);
        }
        return name;
    }

    private String label(String text, Node node, String path) throws WorkflowException {
        if (text.isBlank()) {
            throw fields.error(node.at(), path, "is empty");
        }
        if (text.chars().anyMatch(Character::isISOControl)) {
            throw fields.error(node.at(), path, "must be one line without control characters");
        }
        return text;
    }

    /** {@code env} read before the run: names a shell can read; values scalars, their expressions filled in. */
    Map<String, String> variables(Node node, String path) throws WorkflowException {
        return variables(node, path, Use.PLANNING).known();
    }

    /**
     * {@code env} of a workflow, job or step: as {@link #variables(Node, String)}, except that a
     * value may read what the run knows as a step starts, secrets too.
     */
    Variables env(Node node, String path) throws WorkflowException {
        return variables(node, path, Use.PAYLOAD);
    }

    private Variables variables(Node node, String path, Use use) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map of NAME: value");
        Map<String, Computed> variables = new LinkedHashMap<>();
        Set<String> secrets = new LinkedHashSet<>();
        for (Entry entry : map.entries().values()) {
            String varPath = YamlTree.child(path, entry.key());
            problems.check(() -> {
                if (!VARIABLE.matcher(entry.key()).matches()) {
                    throw fields.error(entry.keyAt(), varPath, "'" + entry.key() + "' is not a valid variable name"
                            + " (letters, digits and '_', not starting with a digit)");
                }
                if (entry.key().toUpperCase(Locale.ROOT).startsWith("KNOTLESS_")) {
                    throw fields.error(entry.keyAt(), varPath, "'" + entry.key() + "' is reserved: the runner sets KNOTLESS_*");
                }
                Node value = entry.value();
                if (value.kind() == Kind.NULL) {
                    variables.put(entry.key(), new Computed.Text(""));
                    return;
                }
                if (!(value instanceof Scalar) || value.kind() == Kind.OTHER) {
                    throw fields.error(value.at(), varPath, "expected a string, number or boolean, got "
                            + value.kind().described());
                }
                Computed computed = use == Use.PLANNING ? new Computed.Text(text(value, varPath, "a value"))
                        : later(value, varPath, "a value", use);
                if (computed instanceof Computed.Text t && t.value().indexOf('\0') >= 0) {
                    throw fields.error(value.at(), varPath, "contains a NUL character, which an environment variable cannot hold");
                }
                if (computed instanceof Computed.Evaluated e) {
                    secrets.addAll(rules.secretNames(e.expression(), value, varPath));
                }
                variables.put(entry.key(), computed);
            });
        }
        return new Variables(variables, secrets);
    }

    /** {@code true}, {@code false}, or an expression read as a condition is (truthy). */
    boolean bool(Node node, String path) throws WorkflowException {
        if (node.kind() == Kind.BOOLEAN) {
            return ((Scalar) node).text().equalsIgnoreCase("true");
        }
        if (node instanceof Scalar s && s.text().contains("${{")) {
            String text = text(node, path, "true or false");
            return !text.isEmpty() && !text.equals("false") && !text.equals("0");
        }
        throw fields.error(node.at(), path, "expected true or false, got " + node.kind().described());
    }

    /** {@code timeout-minutes}: a number of minutes above 0, fractions allowed, as GitHub. */
    Duration minutes(Node node, String path) throws WorkflowException {
        String text = text(node, path, "a number of minutes");
        double minutes = Value.of(text).asNumber();
        if (!(minutes > 0) || minutes > 60 * 24 * 30) {
            throw fields.error(node.at(), path, "expected a number of minutes above 0 (and up to 30 days), got '" + text + "'");
        }
        return Duration.ofMillis(Math.round(minutes * 60_000));
    }

    /**
     * A step's {@code if}, as GitHub reads it: a condition that calls no status function is {@code
     * success() && (...)}. A status function alone is the plan's condition; a condition the file
     * decides (on the matrix) is decided now, null when the step does not run in this combination;
     * any other is left to the run: after {@code success()} when it calls no status function, else
     * whatever happened before ({@code ALWAYS}), evaluated with the status functions answered.
     */
    @Nullable When condition(Node node, String path) throws WorkflowException {
        String raw = node.kind() == Kind.BOOLEAN ? ((Scalar) node).text() : fields.string(node, path, "a condition");
        Condition condition;
        try {
            condition = Condition.parse(raw, SCOPE);
        } catch (ExpressionException e) {
            throw fields.error(node.at(), path, e.getMessage());
        }
        Expression e = condition.expression();
        if (e instanceof Expression.Call call && ContextRules.isStatus(call.name())) {
            return new When(StepCondition.valueOf(call.name().toUpperCase(Locale.ROOT)), null);
        }
        boolean status = e.functions().stream().anyMatch(ContextRules::isStatus);
        Expression rest = e;
        if (e instanceof Expression.And and && and.operands().getFirst() instanceof Expression.Call first
                && first.name().equals(HostFunction.SUCCESS.name())) {
            List<Expression> after = new ArrayList<>(and.operands().subList(1, and.operands().size()));
            if (after.stream().noneMatch(r -> r.functions().stream().anyMatch(ContextRules::isStatus))) {
                rest = after.size() == 1 ? after.getFirst() : new Expression.And(after, and.offset());
                status = false;
            }
        }
        Set<String> read = rules.check(rest, Use.CONDITION, node, path);
        if (!status && rules.decidedNow(rest)) {
            try {
                return rest.evaluate(readable(), Functions.none()).isTruthy() ? new When(StepCondition.SUCCESS, null) : null;
            } catch (ExpressionException x) {
                throw fields.error(node.at(), path, x.getMessage());
            }
        }
        return new When(status ? StepCondition.ALWAYS : StepCondition.SUCCESS,
                new Computed.Evaluated(rest, raw, runContexts));
    }

    /** Whether {@code e} may read a secret ({@link ContextRules#readsSecrets}). */
    boolean readsSecrets(Expression e) {
        return rules.readsSecrets(e);
    }

    /** The secrets {@code value} reads, each named as {@code secrets.NAME}: what its step is granted. */
    Set<String> secretsOf(Computed value, Node node, String path) throws WorkflowException {
        return value instanceof Computed.Evaluated e ? rules.secretNames(e.expression(), node, path) : Set.of();
    }

    /**
     * A local action's end, in its own scope: a script that exits 1 when one of its steps failed
     * (not one that may fail), else 0, as GitHub's composite step fails.
     */
    Computed.Evaluated ended() {
        String text = "exit ${{ contains(steps.*.conclusion, 'failure') && 1 || 0 }}";
        try {
            return new Computed.Evaluated(Template.parse(text, SCOPE).expression(), text, runContexts);
        } catch (ExpressionException e) {
            throw new IllegalStateException("the runner's own expression does not parse", e);
        }
    }

    /** What the file decides: the combination's matrix and strategy, and the known entries of the other contexts. */
    private Contexts readable() {
        return rules.known(contexts != null ? contexts : Contexts.none());
    }

    private Template template(String raw, Node node, String path) throws WorkflowException {
        try {
            return Template.parse(raw, SCOPE);
        } catch (ExpressionException e) {
            throw fields.error(node.at(), path, e.getMessage());
        }
    }

    private String now(Template template, Node node, String path) throws WorkflowException {
        try {
            return template.evaluate(readable(), Functions.none());
        } catch (ExpressionException e) {
            throw fields.error(node.at(), path, e.getMessage());
        }
    }

}
