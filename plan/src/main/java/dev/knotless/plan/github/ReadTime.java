package dev.knotless.plan.github;

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
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A job's values as the file alone decides them: each field's text with its expressions parsed
 * against GitHub's contexts, and those that read only {@code matrix} and {@code strategy} filled in
 * for one combination. An expression that reads what only the run knows ({@code github}, {@code
 * steps}, ...) fails closed at its field until the run computes it.
 */
final class ReadTime {

    /** GitHub's contexts: a name outside them is a mistake in the file, not a missing feature. */
    static final List<String> CONTEXTS = List.of("github", "env", "vars", "secrets", "inputs", "matrix", "needs", "steps",
            "job", "runner", "strategy");
    static final Scope SCOPE = new Scope(CONTEXTS, List.of(HostFunction.HASH_FILES, HostFunction.SUCCESS,
            HostFunction.FAILURE, HostFunction.ALWAYS, HostFunction.CANCELLED));
    /** What the file alone decides. */
    static final Set<String> NOW = Set.of("matrix", "strategy");
    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final Fields fields;
    private final Problems problems;
    /** The combination's values; null where there is no matrix to read. */
    private final @Nullable Contexts contexts;
    private final String noMatrix;

    private ReadTime(Fields fields, Problems problems, @Nullable Contexts contexts, String noMatrix) {
        this.fields = fields;
        this.problems = problems;
        this.contexts = contexts;
        this.noMatrix = noMatrix;
    }

    /** For a workflow's own fields, which no matrix reaches. */
    static ReadTime fileLevel(Fields fields, Problems problems) {
        return new ReadTime(fields, problems, null, "a workflow's fields are read before any job's matrix");
    }

    /** For one combination ({@code index} of its strategy's) of a job's matrix. */
    ReadTime(Fields fields, Problems problems, Map<String, Node> combination, MatrixReader.Strategy strategy, int index) {
        this(fields, problems, strategyContexts(combination, strategy, index),
                "the job has no matrix");
    }

    private static @Nullable Contexts strategyContexts(Map<String, Node> combination, MatrixReader.Strategy strategy,
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
            case ListNode l -> Value.array(l.items().stream().map(ReadTime::value).toList());
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

    /** A scalar's text, its expressions filled in. */
    String text(Node node, String path, String expected) throws WorkflowException {
        String raw = fields.string(node, path, expected);
        if (!raw.contains("${{")) {
            return raw;
        }
        Template template;
        try {
            template = Template.parse(raw, SCOPE);
        } catch (ExpressionException e) {
            throw fields.error(node.at(), path, e.getMessage());
        }
        decidable(template.contexts(), template.functions(), node, path);
        try {
            return template.evaluate(readable(), Functions.none());
        } catch (ExpressionException e) {
            throw fields.error(node.at(), path, e.getMessage());
        }
    }

    /** A name shown to people: one line, not blank, once its expressions are filled in. */
    String label(Node node, String path) throws WorkflowException {
        String text = text(node, path, "a name");
        if (text.isBlank()) {
            throw fields.error(node.at(), path, "is empty");
        }
        if (text.chars().anyMatch(Character::isISOControl)) {
            throw fields.error(node.at(), path, "must be one line without control characters");
        }
        return text;
    }

    /** {@code env}: names a shell can read; values scalars, their expressions filled in. */
    Map<String, String> variables(Node node, String path) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map of NAME: value");
        Map<String, String> variables = new LinkedHashMap<>();
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
                    variables.put(entry.key(), "");
                    return;
                }
                if (!(value instanceof Scalar) || value.kind() == Kind.OTHER) {
                    throw fields.error(value.at(), varPath, "expected a string, number or boolean, got "
                            + value.kind().described());
                }
                String text = text(value, varPath, "a value");
                if (text.indexOf('\0') >= 0) {
                    throw fields.error(value.at(), varPath, "contains a NUL character, which an environment variable cannot hold");
                }
                variables.put(entry.key(), text);
            });
        }
        return variables;
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
     * A step's {@code if}: a status function alone is the plan's condition; a condition on the
     * matrix alone is decided now (null: the step does not run in this combination); any other
     * fails closed.
     */
    @Nullable StepCondition condition(Node node, String path) throws WorkflowException {
        String raw = node.kind() == Kind.BOOLEAN ? ((Scalar) node).text() : fields.string(node, path, "a condition");
        Condition condition;
        try {
            condition = Condition.parse(raw, SCOPE);
        } catch (ExpressionException e) {
            throw fields.error(node.at(), path, e.getMessage());
        }
        Expression e = condition.expression();
        if (e instanceof Expression.Call call && isStatus(call.name())) {
            return StepCondition.valueOf(call.name().toUpperCase(Locale.ROOT));
        }
        if (e instanceof Expression.And and && and.operands().getFirst() instanceof Expression.Call first
                && first.name().equals(HostFunction.SUCCESS.name()) && first.arguments().isEmpty()) {
            List<Expression> rest = new ArrayList<>(and.operands().subList(1, and.operands().size()));
            boolean onlyMatrix = rest.stream().allMatch(r -> r.functions().stream().noneMatch(ReadTime::isStatus));
            if (onlyMatrix) {
                Expression decided = rest.size() == 1 ? rest.getFirst() : new Expression.And(rest, and.offset());
                decidable(decided.contexts(), decided.functions(), node, path);
                try {
                    return decided.evaluate(readable(), Functions.none()).isTruthy() ? StepCondition.SUCCESS : null;
                } catch (ExpressionException x) {
                    throw fields.error(node.at(), path, x.getMessage());
                }
            }
        }
        decidable(e.contexts(), Set.of(), node, path);
        throw fields.error(node.at(), path, "a condition that combines a status function with others is not carried out"
                + " yet; use success(), failure(), always() or cancelled() alone, or a condition on the matrix");
    }

    private static boolean isStatus(String function) {
        return HostFunction.STATUS.stream().anyMatch(f -> f.name().equalsIgnoreCase(function));
    }

    private Contexts readable() {
        return contexts != null ? contexts : Contexts.none();
    }

    /** Fails when an expression reads what only the run knows, or a matrix that is not there. */
    private void decidable(Set<String> read, Set<String> called, Node node, String path) throws WorkflowException {
        for (String context : read) {
            if (!NOW.contains(context)) {
                throw fields.error(node.at(), path, "reads '" + context + "', which this runner does not compute yet"
                        + " (the file alone decides only 'matrix' and 'strategy')");
            }
            if (context.equals("matrix") && (contexts == null || contexts.get("matrix") == null)) {
                throw fields.error(node.at(), path, "reads 'matrix', but " + noMatrix);
            }
            if (context.equals("strategy") && contexts == null) {
                throw fields.error(node.at(), path, "reads 'strategy', but " + noMatrix);
            }
        }
        for (String function : called) {
            if (isStatus(function) || function.equalsIgnoreCase(HostFunction.HASH_FILES.name())) {
                throw fields.error(node.at(), path, "calls " + function + "(), which this runner does not compute here yet");
            }
        }
    }
}
