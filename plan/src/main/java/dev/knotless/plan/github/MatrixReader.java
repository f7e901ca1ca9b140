package dev.knotless.plan.github;

import dev.knotless.plan.Matrix;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.Kind;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Reads a job's {@code strategy} and expands its {@code matrix} as GitHub does: the product of the
 * axes in the order written, less each {@code exclude} (a partial combination), then each
 * {@code include} added to every combination whose original values it does not overwrite, or
 * made a combination of its own when it fits none. Values keep their YAML form (a value may be a
 * map), and are filled into the job's expressions per combination.
 */
final class MatrixReader {

    static final Keys STRATEGY = new Keys(List.of("matrix", "fail-fast", "max-parallel"), Map.of());

    /** A job's strategy: its combinations in order (one empty combination without a matrix). */
    record Strategy(List<Map<String, Node>> combinations, boolean failFast, int maxParallel, boolean hasMatrix) {
        static final Strategy NONE = new Strategy(List.of(Map.of()), true, 0, false);
    }

    private final Fields fields;
    private final Problems problems;

    MatrixReader(Fields fields, Problems problems) {
        this.fields = fields;
        this.problems = problems;
    }

    Strategy read(Node node, String path) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map such as {matrix: {jdk: [17, 21]}, fail-fast: false}");
        STRATEGY.check(map, path, fields, problems);
        boolean failFast = true;
        int maxParallel = 0;
        List<Map<String, Node>> combinations = List.of(Map.of());
        boolean hasMatrix = false;
        for (Entry entry : map.entries().values()) {
            String fieldPath = path + "." + entry.key();
            Node value = entry.value();
            switch (entry.key()) {
                case "fail-fast" -> failFast = bool(value, fieldPath);
                case "max-parallel" -> {
                    String text = fields.string(value, fieldPath, "a number");
                    if (value.kind() != Kind.NUMBER || !text.matches("[0-9]{1,4}") || Integer.parseInt(text) < 1) {
                        throw fields.error(value.at(), fieldPath, "expected a whole number from 1, got '" + text + "'");
                    }
                    maxParallel = Integer.parseInt(text);
                }
                case "matrix" -> {
                    combinations = expand(value, fieldPath);
                    hasMatrix = true;
                }
                default -> { }
            }
        }
        return new Strategy(combinations, failFast, maxParallel, hasMatrix);
    }

    private List<Map<String, Node>> expand(Node node, String path) throws WorkflowException {
        if (node instanceof Scalar s && s.text().contains("${{")) {
            throw fields.error(node.at(), path, "a matrix made by an expression is not carried out yet; write its axes");
        }
        MapNode matrix = fields.map(node, path, "a map of axes such as {jdk: [17, 21]}");
        Map<String, List<Node>> axes = new LinkedHashMap<>();
        List<MapNode> include = List.of();
        List<MapNode> exclude = List.of();
        for (Entry entry : matrix.entries().values()) {
            String axisPath = YamlTree.child(path, entry.key());
            switch (entry.key()) {
                case "include" -> include = partials(entry.value(), axisPath);
                case "exclude" -> exclude = partials(entry.value(), axisPath);
                default -> {
                    if (!(entry.value() instanceof ListNode list)) {
                        throw fields.error(entry.value().at(), axisPath, entry.value() instanceof Scalar s
                                && s.text().contains("${{") ? "an axis made by an expression is not carried out yet; list its values"
                                : "expected a list of values, got " + entry.value().kind().described());
                    }
                    if (list.items().isEmpty()) {
                        throw fields.error(list.at(), axisPath, "is empty: a matrix with an empty axis has no combination");
                    }
                    axes.put(entry.key(), list.items());
                }
            }
        }
        long product = 1;
        for (List<Node> values : axes.values()) {
            product *= values.size();
            if (product > Matrix.MAX_COMBINATIONS) {
                throw fields.error(matrix.at(), path, "more than " + Matrix.MAX_COMBINATIONS + " combinations, GitHub's limit too");
            }
        }
        List<Map<String, Node>> combinations = new ArrayList<>();
        if (!axes.isEmpty()) {
            combinations.add(new LinkedHashMap<>());
            for (Map.Entry<String, List<Node>> axis : axes.entrySet()) {
                List<Map<String, Node>> next = new ArrayList<>();
                for (Map<String, Node> partial : combinations) {
                    for (Node value : axis.getValue()) {
                        Map<String, Node> more = new LinkedHashMap<>(partial);
                        more.put(axis.getKey(), value);
                        next.add(more);
                    }
                }
                combinations = next;
            }
        }
        for (int i = 0; i < exclude.size(); i++) {
            MapNode partial = exclude.get(i);
            for (Entry e : partial.entries().values()) {
                if (!axes.containsKey(e.key())) {
                    throw fields.error(e.keyAt(), path + ".exclude[" + i + "]." + e.key(), "'" + e.key()
                            + "' is not an axis of the matrix (" + String.join(", ", axes.keySet()) + ")");
                }
            }
            combinations.removeIf(c -> partial.entries().values().stream().allMatch(e -> same(c.get(e.key()), e.value())));
        }
        int original = combinations.size();
        for (MapNode partial : include) {
            boolean added = false;
            for (int i = 0; i < original; i++) {
                Map<String, Node> c = combinations.get(i);
                boolean overwrites = partial.entries().values().stream()
                        .anyMatch(e -> axes.containsKey(e.key()) && !same(c.get(e.key()), e.value()));
                if (!overwrites) {
                    partial.entries().values().forEach(e -> c.put(e.key(), e.value()));
                    added = true;
                }
            }
            if (!added) {
                Map<String, Node> own = new LinkedHashMap<>();
                partial.entries().values().forEach(e -> own.put(e.key(), e.value()));
                combinations.add(own);
            }
        }
        if (combinations.isEmpty()) {
            throw fields.error(matrix.at(), path, "has no combination left (every one is excluded)");
        }
        if (combinations.size() > Matrix.MAX_COMBINATIONS) {
            throw fields.error(matrix.at(), path, "more than " + Matrix.MAX_COMBINATIONS + " combinations, GitHub's limit too");
        }
        return combinations;
    }

    private List<MapNode> partials(Node node, String path) throws WorkflowException {
        if (!(node instanceof ListNode list)) {
            throw fields.error(node.at(), path, "expected a list of maps such as [{jdk: 21, os: linux}], got "
                    + node.kind().described());
        }
        List<MapNode> partials = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            partials.add(fields.map(list.items().get(i), path + "[" + i + "]", "a map such as {jdk: 21}"));
        }
        return partials;
    }

    /** Whether two values are the same as a matrix compares them: scalars by text, maps and lists item by item. */
    static boolean same(Node a, Node b) {
        if (a == null || b == null) {
            return a == b;
        }
        return switch (a) {
            case Scalar s -> b instanceof Scalar t && s.text().equals(t.text());
            case ListNode l -> b instanceof ListNode m && l.items().size() == m.items().size()
                    && java.util.stream.IntStream.range(0, l.items().size()).allMatch(i -> same(l.items().get(i), m.items().get(i)));
            case MapNode m -> b instanceof MapNode n && m.entries().keySet().equals(n.entries().keySet())
                    && m.entries().keySet().stream().allMatch(k -> same(m.entries().get(k).value(), n.entries().get(k).value()));
        };
    }

    private boolean bool(Node node, String path) throws WorkflowException {
        if (node.kind() != Kind.BOOLEAN) {
            throw fields.error(node.at(), path, "expected true or false, got " + node.kind().described());
        }
        return Boolean.parseBoolean(((Scalar) node).text().toLowerCase(Locale.ROOT));
    }

    /** How a value is shown in a combination's name: a scalar as written, a map or list compactly. */
    static String shown(Node node) {
        return switch (node) {
            case Scalar s -> s.text();
            case ListNode l -> "[" + String.join(", ", l.items().stream().map(MatrixReader::shown).toList()) + "]";
            case MapNode m -> "{" + String.join(", ", m.entries().values().stream()
                    .map(e -> e.key() + ": " + shown(e.value())).toList()) + "}";
        };
    }

}
