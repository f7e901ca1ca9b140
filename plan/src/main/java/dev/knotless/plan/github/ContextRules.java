package dev.knotless.plan.github;

import dev.knotless.plan.RunValue;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.expression.Contexts;
import dev.knotless.plan.expression.Expression;
import dev.knotless.plan.expression.HostFunction;
import dev.knotless.plan.expression.Value;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.Node;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What an expression may read where ({@link ReadTime.Use}): the contexts and functions a place
 * allows, the properties of the runner's closed trees it names, a matrix that is there, the
 * secrets it reads (named, so that the runner knows what to grant), and whether it may read a
 * secret at all, through {@code secrets} or a local action's input that was given one.
 */
final class ContextRules {

    private final Fields fields;
    private final Map<String, RunValue> runContexts;
    /** The combination's values; null where there is no matrix to read. */
    private final @Nullable Contexts contexts;
    private final String noMatrix;
    /** The inputs (of a local action) whose values read secrets: read like secrets. */
    private final Set<String> secretInputs;

    ContextRules(Fields fields, Map<String, RunValue> runContexts, @Nullable Contexts contexts, String noMatrix,
            Set<String> secretInputs) {
        this.fields = fields;
        this.runContexts = runContexts;
        this.contexts = contexts;
        this.noMatrix = noMatrix;
        this.secretInputs = Set.copyOf(secretInputs);
    }

    /**
     * Whether {@code e} may read a secret: the {@code secrets} context, or an input of a local
     * action that was given one (any input, where it names them by a computed key or as a whole).
     */
    boolean readsSecrets(Expression e) {
        if (e.contexts().contains("secrets")) {
            return true;
        }
        if (secretInputs.isEmpty() || !e.contexts().contains("inputs")) {
            return false;
        }
        return readsSecretInput(e, null);
    }

    private boolean readsSecretInput(Expression e, @Nullable Expression parent) {
        if (e instanceof Expression.Context c && c.name().equals("inputs")) {
            if (parent instanceof Expression.Index index && index.target() == e && index.key() instanceof Expression.Literal key
                    && key.value() instanceof Value.StringValue name) {
                return secretInputs.stream().anyMatch(n -> n.equalsIgnoreCase(name.value()));
            }
            return true;
        }
        for (Expression child : e.children()) {
            if (readsSecretInput(child, e)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code e} calls {@code hashFiles}, which only the run can answer, from its workspace. */
    static boolean hashesFiles(Expression e) {
        return e.functions().stream().anyMatch(f -> f.equalsIgnoreCase(HostFunction.HASH_FILES.name()));
    }

    static boolean isStatus(String function) {
        return HostFunction.STATUS.stream().anyMatch(f -> f.name().equalsIgnoreCase(function));
    }

    /**
     * The contexts {@code e} reads, once checked against where it is evaluated ({@code use}): the
     * contexts and functions it may call there, the properties of the runner's closed trees it
     * names, a matrix that is there.
     */
    Set<String> check(Expression e, ReadTime.Use use, Node node, String path) throws WorkflowException {
        Set<String> read = e.contexts();
        for (String context : read) {
            if (!ReadTime.NOW.contains(context) && !ReadTime.RUN.contains(context)) {
                throw fields.error(node.at(), path, "reads '" + context + "', which this runner does not compute yet");
            }
            if (ReadTime.RUN.contains(context) && !runContexts.containsKey(context) && !ReadTime.NOW.contains(context)) {
                throw fields.error(node.at(), path, "reads '" + context + "', which " + (context.equals("secrets")
                        ? "a local action's steps cannot read, as on GitHub: pass the secret to it as an input"
                        : "is not there for a local action's steps"));
            }
            if (ReadTime.RUN.contains(context) && use == ReadTime.Use.PLANNING && !decidedNow(e)) {
                throw fields.error(node.at(), path, "reads '" + context + "', which only the run knows, and this field is"
                        + " read before the run starts (the file alone decides only 'matrix' and 'strategy')");
            }
            if (context.equals("secrets") && use != ReadTime.Use.PAYLOAD) {
                throw fields.error(node.at(), path, "reads 'secrets', which " + switch (use) {
                    case SHOWN -> "a name shown on the check must not hold";
                    case CONDITION -> "GitHub does not allow in 'if' either; test a variable of the step's 'env' set"
                            + " from the secret instead";
                    default -> "a value handed to other runs must not hold (GitHub leaves such an output out)";
                });
            }
            if (context.equals("matrix") && (contexts == null || contexts.get("matrix") == null)) {
                throw fields.error(node.at(), path, "reads 'matrix', but " + noMatrix);
            }
            if (context.equals("strategy") && contexts == null) {
                throw fields.error(node.at(), path, "reads 'strategy', but " + noMatrix);
            }
        }
        if (use != ReadTime.Use.PAYLOAD && !read.contains("secrets") && readsSecrets(e)) {
            throw fields.error(node.at(), path, "reads an input of the action that was given a secret, which only a"
                    + " step's script and variables may read");
        }
        for (String function : e.functions()) {
            if (function.equalsIgnoreCase(HostFunction.HASH_FILES.name()) && use == ReadTime.Use.PLANNING) {
                throw fields.error(node.at(), path, "calls hashFiles(), which reads the run's files, and this field is"
                        + " read before the run starts");
            }
            if (isStatus(function) && use != ReadTime.Use.CONDITION) {
                throw fields.error(node.at(), path, "calls " + function + "(), which only a step's 'if' may call");
            }
        }
        properties(e, node, path);
        return read;
    }

    /**
     * Whether the file decides {@code e}: it reads {@code matrix} and {@code strategy}, and of the
     * other contexts only entries the front-end knows ({@code github.workspace}, {@code runner.os}),
     * no fact of the run and no function only the run answers.
     */
    boolean decidedNow(Expression e) {
        return !hashesFiles(e) && e.functions().stream().noneMatch(ContextRules::isStatus) && knownOnly(e, null);
    }

    private boolean knownOnly(Expression e, @Nullable Expression parent) {
        if (e instanceof Expression.Context c && !ReadTime.NOW.contains(c.name())) {
            return parent instanceof Expression.Index index && index.target() == e
                    && index.key() instanceof Expression.Literal key && key.value() instanceof Value.StringValue name
                    && runContexts.get(c.name()) instanceof RunValue.Entries tree
                    && entry(tree, name.value()) instanceof RunValue.Known;
        }
        for (Expression child : e.children()) {
            if (!knownOnly(child, e)) {
                return false;
            }
        }
        return true;
    }

    /** The contexts an expression the file decides reads: {@code decided}'s and the known entries of the others. */
    Contexts known(Contexts decided) {
        return name -> {
            Value value = decided.get(name);
            if (value != null || !(runContexts.get(name) instanceof RunValue.Entries tree)) {
                return value;
            }
            Value.ObjectValue.Builder object = Value.ObjectValue.builder();
            tree.entries().forEach((key, entry) -> {
                if (entry instanceof RunValue.Known k) {
                    object.put(key, k.value());
                }
            });
            return object.build();
        };
    }

    /** Fails on a property of one of the runner's closed trees ({@code github.event}) that none of its entries names. */
    private void properties(Expression e, Node node, String path) throws WorkflowException {
        if (e instanceof Expression.Index index) {
            RunValue.Entries tree = tree(index.target());
            if (tree != null && index.key() instanceof Expression.Literal key
                    && key.value() instanceof Value.StringValue name && entry(tree, name.value()) == null) {
                throw fields.error(node.at(), path, "reads '" + name.value() + "' of a context whose properties this"
                        + " runner computes are only: " + (tree.entries().isEmpty() ? "none (for 'inputs': no such input is"
                        + " declared; for 'needs': the job needs no such job)" : String.join(", ", tree.entries().keySet())));
            }
        }
        for (Expression child : e.children()) {
            properties(child, node, path);
        }
    }

    /** The closed tree {@code e} names, when it is a context or a path of literal keys into one. */
    private RunValue.@Nullable Entries tree(Expression e) {
        RunValue at = switch (e) {
            case Expression.Context c -> runContexts.get(c.name());
            case Expression.Index i when i.key() instanceof Expression.Literal key
                    && key.value() instanceof Value.StringValue name && tree(i.target()) instanceof RunValue.Entries parent ->
                    entry(parent, name.value());
            default -> null;
        };
        return at instanceof RunValue.Entries entries ? entries : null;
    }

    private static @Nullable RunValue entry(RunValue.Entries tree, String name) {
        for (Map.Entry<String, RunValue> entry : tree.entries().entrySet()) {
            if (entry.getKey().equalsIgnoreCase(name)) {
                return entry.getValue();
            }
        }
        return null;
    }

    /**
     * The secrets {@code e} reads, each named as {@code secrets.NAME}: what the step is granted.
     * A secret named by a computed key, or the context as a whole, fails: the runner grants by name.
     */
    Set<String> secretNames(Expression e, Node node, String path) throws WorkflowException {
        Set<String> names = new LinkedHashSet<>();
        collectSecrets(e, null, names, node, path);
        return names;
    }

    private void collectSecrets(Expression e, @Nullable Expression parent, Set<String> names, Node node, String path)
            throws WorkflowException {
        if (e instanceof Expression.Context c && c.name().equals("secrets")) {
            if (parent instanceof Expression.Index index && index.target() == e && index.key() instanceof Expression.Literal key
                    && key.value() instanceof Value.StringValue name) {
                names.add(name.value());
                return;
            }
            throw fields.error(node.at(), path, "reads 'secrets' as a whole or by a computed name; name each secret"
                    + " as secrets.NAME, so that the runner knows which to grant the step");
        }
        for (Expression child : e.children()) {
            collectSecrets(child, e, names, node, path);
        }
    }
}
