package dev.knotless.plan.yaml;

import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.Kind;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Position;
import dev.knotless.time.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The value readers every part of a workflow file shares: strings, names, lists, maps, durations
 * and the strict field check, each failing with a {@link WorkflowException} that names the file,
 * position and field. One per file read; stateless beyond the file's name.
 */
public record Fields(String file) {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    public Duration duration(Node node, String path) throws WorkflowException {
        if (node.kind() != Kind.STRING && node.kind() != Kind.NUMBER) {
            throw error(node.at(), path,
                    "expected a duration such as 90s, 10m or 1h30m, got " + node.kind().described());
        }
        try {
            return Durations.parse(((YamlTree.Scalar) node).text());
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw error(node.at(), path, e instanceof ArithmeticException ? "too long a duration" : e.getMessage());
        }
    }

    /** A name shown to people: one line, not blank. */
    public String label(Node node, String path) throws WorkflowException {
        String text = string(node, path, "a name");
        if (text.isBlank()) {
            throw error(node.at(), path, "is empty");
        }
        if (text.chars().anyMatch(Character::isISOControl)) {
            throw error(node.at(), path, "must be one line without control characters");
        }
        return text;
    }

    public List<String> distinctStrings(Node node, String path, String what) throws WorkflowException {
        if (!(node instanceof ListNode list)) {
            throw error(node.at(), path, "expected a list of strings, got " + node.kind().described());
        }
        List<String> values = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < list.items().size(); i++) {
            Node item = list.items().get(i);
            String itemPath = path + "[" + i + "]";
            String value = string(item, itemPath, "a " + what);
            if (value.isBlank()) {
                throw error(item.at(), itemPath, "is empty");
            }
            if (value.chars().anyMatch(Character::isISOControl)) {
                throw error(item.at(), itemPath, "contains a control character");
            }
            if (!seen.add(value)) {
                throw error(item.at(), itemPath, what + " '" + value + "' is listed twice");
            }
            values.add(value);
        }
        return values;
    }

    /** A scalar's text as written; numbers and booleans included ({@code run: true} is a script). */
    public String string(Node node, String path, String expected) throws WorkflowException {
        if (node instanceof YamlTree.Scalar scalar && scalar.kind() != Kind.NULL && scalar.kind() != Kind.OTHER) {
            return scalar.text();
        }
        throw error(node.at(), path, "expected " + expected + " (a string), got " + node.kind().described());
    }

    public MapNode map(Node node, String path, String expected) throws WorkflowException {
        if (node instanceof MapNode map) {
            return map;
        }
        throw error(node.at(), path, "expected " + expected + ", got " + node.kind().described());
    }

    public void checkName(String name, Position at, String path, String what) throws WorkflowException {
        if (!IDENTIFIER.matcher(name).matches()) {
            throw error(at, path, "'" + name + "' is not a valid " + what
                    + " name (letters, digits and '_', not starting with a digit)");
        }
        if (name.startsWith("KNOTLESS_") || name.equals("CI")) {
            throw error(at, path, "'" + name + "' is reserved: the runner sets CI and KNOTLESS_* itself");
        }
    }

    /** A map of environment variables: names as {@link #checkName} allows, scalar values. */
    public Map<String, String> variables(Node node, String path) throws WorkflowException {
        MapNode map = map(node, path, "a map of NAME: value");
        Map<String, String> variables = new LinkedHashMap<>();
        for (Entry entry : map.entries().values()) {
            String varPath = YamlTree.child(path, entry.key());
            checkName(entry.key(), entry.keyAt(), varPath, "variable");
            Node value = entry.value();
            if (value.kind() == Kind.NULL) {
                throw error(value.at(), varPath, "has no value (write '' for an empty string)");
            }
            if (!(value instanceof YamlTree.Scalar scalar) || value.kind() == Kind.OTHER) {
                throw error(value.at(), varPath, "expected a string, number or boolean, got " + value.kind().described());
            }
            if (scalar.text().indexOf('\0') >= 0) {
                throw error(value.at(), varPath, "contains a NUL character, which an environment variable cannot hold");
            }
            variables.put(entry.key(), scalar.text());
        }
        return variables;
    }

    public void onlyKnown(MapNode map, String path, List<String> known) throws WorkflowException {
        for (Entry entry : map.entries().values()) {
            if (!known.contains(entry.key())) {
                String suggestion = closest(entry.key(), known);
                throw error(entry.keyAt(), YamlTree.child(path, entry.key()), "unknown field"
                        + (suggestion != null ? " (did you mean '" + suggestion + "'?)" : "")
                        + "; expected one of " + String.join(", ", known));
            }
        }
    }

    public WorkflowException error(Position at, String path, String problem) {
        return new WorkflowException(file, at.line(), at.column(), path, problem);
    }

    /** The known word within two edits of {@code word}, if any. */
    static String closest(String word, List<String> known) {
        String best = null;
        int bestDistance = 3;
        for (String candidate : known) {
            int d = distance(word.toLowerCase(java.util.Locale.ROOT), candidate);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return best;
    }

    private static int distance(String a, String b) {
        if (Math.abs(a.length() - b.length()) > 2) {
            return 3;
        }
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
