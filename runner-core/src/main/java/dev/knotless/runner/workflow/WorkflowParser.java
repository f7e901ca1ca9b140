package dev.knotless.runner.workflow;

import dev.knotless.executor.Resources;
import dev.knotless.checks.Event;
import dev.knotless.runner.workflow.YamlTree.Entry;
import dev.knotless.runner.workflow.YamlTree.Kind;
import dev.knotless.runner.workflow.YamlTree.ListNode;
import dev.knotless.runner.workflow.YamlTree.MapNode;
import dev.knotless.runner.workflow.YamlTree.Node;
import dev.knotless.runner.workflow.YamlTree.Position;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads workflow files into {@link Workflow}s, strictly: an unknown field, a value of the wrong
 * type, a missing {@code steps} or {@code run}, a bad value, a duplicate key or a YAML syntax error
 * is a {@link WorkflowException} naming the file, line, column and field. The schema is in {@code
 * docs/reference/workflow.md}. Stateless and thread-safe.
 */
public final class WorkflowParser {

    /** Where a repository keeps its workflows. */
    public static final String DIRECTORY = ".knotless/workflows";

    static final List<String> WORKFLOW_FIELDS =
            List.of("name", "on", "runners", "image", "timeout", "resources", "variables", "cache", "steps");
    static final List<String> STEP_FIELDS = List.of("name", "run", "timeout", "secrets");
    static final List<String> RESOURCE_FIELDS = List.of("cpu", "memory");
    static final List<String> TRIGGER_FIELDS = List.of("branches");

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern DURATION = Pattern.compile("(?:(\\d{1,9})h)?(?:(\\d{1,9})m)?(?:(\\d{1,9})s)?");
    private static final Pattern SECONDS = Pattern.compile("\\d{1,12}");
    private static final Pattern CPU = Pattern.compile("\\d{1,12}(?:\\.\\d{1,9})?|\\d{1,12}m");
    private static final Pattern MEMORY = Pattern.compile("\\d{1,15}(?:\\.\\d{1,9})?(?:[KMGT]i?|[kmg])?");

    private WorkflowParser() {}

    /** Whether a file of the workflow directory is a workflow: its name ends in {@code .yaml} or {@code .yml}. */
    public static boolean isWorkflowFile(String path) {
        return path.endsWith(".yaml") || path.endsWith(".yml");
    }

    /**
     * Reads one workflow file.
     *
     * @param file the path shown in errors and kept in {@link Workflow#file()}
     * @throws WorkflowException for the first problem found, in file order
     */
    public static Workflow parse(String file, String yamlText) throws WorkflowException {
        return new Reader(file).workflow(YamlTree.read(file, yamlText));
    }

    /**
     * Reads every workflow file of {@code files} (path to text); other names, such as a README, are
     * left out. Two files may not give their workflows the same name: the later file (by path) is
     * the one in error.
     */
    public static WorkflowSet parseAll(Map<String, String> files) {
        List<Workflow> workflows = new ArrayList<>();
        List<WorkflowException> errors = new ArrayList<>();
        Map<String, String> fileByName = new HashMap<>();
        for (Map.Entry<String, String> entry : new TreeMap<>(files).entrySet()) {
            String file = entry.getKey();
            if (!isWorkflowFile(file)) {
                continue;
            }
            Reader reader = new Reader(file);
            try {
                Workflow workflow = reader.workflow(YamlTree.read(file, entry.getValue()));
                String earlier = fileByName.putIfAbsent(workflow.name(), file);
                if (earlier != null) {
                    Position at = reader.nameAt;
                    throw new WorkflowException(file, at.line(), at.column(), "name",
                            "workflow name '" + workflow.name() + "' is already used by " + earlier
                                    + (reader.nameGiven ? "" : " (set 'name' to tell them apart)"));
                }
                workflows.add(workflow);
            } catch (WorkflowException e) {
                errors.add(e);
            }
        }
        return new WorkflowSet(workflows, errors);
    }

    /**
     * Parses {@code 90s}, {@code 10m}, {@code 1h}, {@code 1h30m}, {@code 1h30m15s} or a whole
     * number of seconds; more than zero.
     *
     * @throws IllegalArgumentException saying what forms are accepted
     */
    public static Duration parseDuration(String text) {
        String s = text.strip();
        Duration duration;
        if (SECONDS.matcher(s).matches()) {
            duration = Duration.ofSeconds(Long.parseLong(s));
        } else {
            Matcher m = DURATION.matcher(s);
            if (s.isEmpty() || !m.matches()) {
                throw new IllegalArgumentException(
                        "not a duration: '" + text + "' (use 90s, 10m, 1h, 1h30m or a whole number of seconds)");
            }
            duration = Duration.ofHours(group(m, 1)).plusMinutes(group(m, 2)).plusSeconds(group(m, 3));
        }
        if (duration.isZero()) {
            throw new IllegalArgumentException("a duration of zero; give more than 0s");
        }
        return duration;
    }

    private static long group(Matcher m, int group) {
        return m.group(group) == null ? 0 : Long.parseLong(m.group(group));
    }

    /** Walks one file's tree against the schema. */
    private static final class Reader {
        private final String file;
        Position nameAt = Position.START;
        boolean nameGiven;

        Reader(String file) {
            this.file = file;
        }

        /** Fields are checked in the order written, so the first mistake in the file is the one reported. */
        Workflow workflow(Node root) throws WorkflowException {
            if (!(root instanceof MapNode map)) {
                throw error(root.at(), "", "expected a map of workflow fields (name, on, steps, ...), got "
                        + root.kind().described);
            }
            onlyKnown(map, "", WORKFLOW_FIELDS);
            String name = defaultName(file);
            Triggers on = Triggers.DEFAULT;
            List<String> runners = List.of();
            String image = null;
            Duration timeout = null;
            Resources resources = Resources.DEFAULT;
            Map<String, String> variables = Map.of();
            List<String> cache = List.of();
            List<Step> steps = null;
            for (Entry entry : map.entries().values()) {
                String path = entry.key();
                Node value = entry.value();
                switch (entry.key()) {
                    case "name" -> {
                        name = label(value, path);
                        nameAt = value.at();
                        nameGiven = true;
                    }
                    case "on" -> on = triggers(value, path);
                    case "runners" -> runners = distinctStrings(value, path, "runner id");
                    case "image" -> image = image(value, path);
                    case "timeout" -> timeout = duration(value, path);
                    case "resources" -> resources = resources(value, path);
                    case "variables" -> variables = variables(value, path);
                    case "cache" -> cache = distinctStrings(value, path, "cache entry");
                    case "steps" -> steps = steps(value, path);
                    default -> throw new IllegalStateException(entry.key());
                }
            }
            if (steps == null) {
                throw error(map.at(), "steps", "required: a workflow needs at least one step");
            }
            return new Workflow(name, file, on, runners, image, timeout, resources, variables, cache, steps);
        }

        private Triggers triggers(Node node, String path) throws WorkflowException {
            Map<Event, List<String>> branches = new EnumMap<>(Event.class);
            switch (node) {
                case YamlTree.Scalar scalar when scalar.kind() != Kind.NULL ->
                        branches.put(event(scalar, path), List.of());
                case ListNode list -> {
                    if (list.items().isEmpty()) {
                        throw error(list.at(), path, "names no event; list at least one of " + Event.choices());
                    }
                    for (int i = 0; i < list.items().size(); i++) {
                        Node item = list.items().get(i);
                        Event event = event(item, path + "[" + i + "]");
                        if (branches.put(event, List.of()) != null) {
                            throw error(item.at(), path + "[" + i + "]", "event '" + event.wireName() + "' is listed twice");
                        }
                    }
                }
                case MapNode map -> {
                    if (map.entries().isEmpty()) {
                        throw error(map.at(), path, "names no event; give at least one of " + Event.choices());
                    }
                    for (Entry entry : map.entries().values()) {
                        String eventPath = YamlTree.child(path, entry.key());
                        Event event;
                        try {
                            event = Event.parse(entry.key());
                        } catch (IllegalArgumentException e) {
                            throw error(entry.keyAt(), eventPath, e.getMessage());
                        }
                        branches.put(event, branchFilter(entry.value(), eventPath));
                    }
                }
                default -> throw error(node.at(), path,
                        "expected an event, a list of events or a map of events, got " + node.kind().described);
            }
            return new Triggers(branches);
        }

        private Event event(Node node, String path) throws WorkflowException {
            String text = string(node, path, "an event");
            try {
                return Event.parse(text);
            } catch (IllegalArgumentException e) {
                throw error(node.at(), path, e.getMessage());
            }
        }

        /** {@code null}, {@code {}} or {@code {branches: [...]}}. */
        private List<String> branchFilter(Node node, String path) throws WorkflowException {
            if (node.kind() == Kind.NULL) {
                return List.of();
            }
            if (!(node instanceof MapNode map)) {
                throw error(node.at(), path, "expected a map such as {branches: [main]} or nothing, got "
                        + node.kind().described);
            }
            onlyKnown(map, path, TRIGGER_FIELDS);
            Entry branches = map.entries().get("branches");
            if (branches == null) {
                return List.of();
            }
            String branchesPath = path + ".branches";
            List<String> globs = distinctStrings(branches.value(), branchesPath, "branch pattern");
            if (globs.isEmpty()) {
                throw error(branches.value().at(), branchesPath,
                        "is empty; leave 'branches' out to mean every branch");
            }
            return globs;
        }

        private Resources resources(Node node, String path) throws WorkflowException {
            MapNode map = map(node, path, "a map such as {cpu: 2, memory: 4Gi}");
            onlyKnown(map, path, RESOURCE_FIELDS);
            long milliCpu = 0;
            long memory = 0;
            for (Entry entry : map.entries().values()) {
                String fieldPath = path + "." + entry.key();
                Node value = entry.value();
                if (entry.key().equals("cpu")) {
                    String text = quantity(value, fieldPath, "a CPU quantity such as 2, 0.5 or 500m");
                    if (!CPU.matcher(text).matches()) {
                        throw error(value.at(), fieldPath, "not a CPU quantity: '" + text + "' (use 2, 0.5 or 500m)");
                    }
                    milliCpu = Resources.parseMilliCpu(text);
                    if (milliCpu < 1) {
                        throw error(value.at(), fieldPath, "must be at least 1m, a thousandth of a core");
                    }
                } else {
                    String text = quantity(value, fieldPath, "a memory quantity such as 512Mi or 2Gi");
                    if (!MEMORY.matcher(text).matches()) {
                        throw error(value.at(), fieldPath,
                                "not a memory quantity: '" + text + "' (use 512Mi, 2Gi, 1G, 512m or bytes)");
                    }
                    memory = Resources.parseMemory(text);
                    if (memory < 1) {
                        throw error(value.at(), fieldPath, "must be more than 0 bytes");
                    }
                }
            }
            return new Resources(milliCpu, memory);
        }

        private String quantity(Node node, String path, String expected) throws WorkflowException {
            if (node.kind() != Kind.STRING && node.kind() != Kind.NUMBER) {
                throw error(node.at(), path, "expected " + expected + ", got " + node.kind().described);
            }
            return ((YamlTree.Scalar) node).text().strip();
        }

        private Map<String, String> variables(Node node, String path) throws WorkflowException {
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
                    throw error(value.at(), varPath, "expected a string, number or boolean, got " + value.kind().described);
                }
                if (scalar.text().indexOf('\0') >= 0) {
                    throw error(value.at(), varPath, "contains a NUL character, which an environment variable cannot hold");
                }
                variables.put(entry.key(), scalar.text());
            }
            return variables;
        }

        private List<Step> steps(Node node, String path) throws WorkflowException {
            if (!(node instanceof ListNode list)) {
                throw error(node.at(), path, "expected a list of steps, got " + node.kind().described);
            }
            if (list.items().isEmpty()) {
                throw error(list.at(), path, "is empty; a workflow needs at least one step");
            }
            List<Step> steps = new ArrayList<>();
            for (int i = 0; i < list.items().size(); i++) {
                steps.add(step(list.items().get(i), path + "[" + i + "]", i + 1));
            }
            return steps;
        }

        private Step step(Node node, String path, int number) throws WorkflowException {
            MapNode map = map(node, path, "a step, a map with at least 'run'");
            onlyKnown(map, path, STEP_FIELDS);
            String name = "step " + number;
            String script = null;
            Duration timeout = null;
            List<String> secrets = List.of();
            for (Entry entry : map.entries().values()) {
                String fieldPath = path + "." + entry.key();
                Node value = entry.value();
                switch (entry.key()) {
                    case "name" -> name = label(value, fieldPath);
                    case "run" -> {
                        script = string(value, fieldPath, "a script");
                        if (script.isBlank()) {
                            throw error(value.at(), fieldPath, "is empty; give the script this step runs");
                        }
                    }
                    case "timeout" -> timeout = duration(value, fieldPath);
                    case "secrets" -> secrets = secrets(value, fieldPath);
                    default -> throw new IllegalStateException(entry.key());
                }
            }
            if (script == null) {
                throw error(map.at(), path + ".run", "required: the script this step runs");
            }
            return new Step(name, script, timeout, secrets);
        }

        private List<String> secrets(Node node, String path) throws WorkflowException {
            if (!(node instanceof ListNode list)) {
                throw error(node.at(), path, "expected a list of secret names, got " + node.kind().described);
            }
            List<String> names = new ArrayList<>();
            for (int i = 0; i < list.items().size(); i++) {
                Node item = list.items().get(i);
                String itemPath = path + "[" + i + "]";
                String secret = string(item, itemPath, "a secret name");
                checkName(secret, item.at(), itemPath, "secret");
                if (names.contains(secret)) {
                    throw error(item.at(), itemPath, "secret '" + secret + "' is listed twice");
                }
                names.add(secret);
            }
            return names;
        }

        private Duration duration(Node node, String path) throws WorkflowException {
            if (node.kind() != Kind.STRING && node.kind() != Kind.NUMBER) {
                throw error(node.at(), path,
                        "expected a duration such as 90s, 10m or 1h30m, got " + node.kind().described);
            }
            try {
                return parseDuration(((YamlTree.Scalar) node).text());
            } catch (IllegalArgumentException | ArithmeticException e) {
                throw error(node.at(), path, e instanceof ArithmeticException ? "too long a duration" : e.getMessage());
            }
        }

        private String image(Node node, String path) throws WorkflowException {
            String image = string(node, path, "an image reference");
            if (image.isBlank() || image.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
                throw error(node.at(), path, "not an image reference: '" + image + "' (no spaces; such as alpine:3.20)");
            }
            return image;
        }

        /** A name shown to people: one line, not blank. */
        private String label(Node node, String path) throws WorkflowException {
            String text = string(node, path, "a name");
            if (text.isBlank()) {
                throw error(node.at(), path, "is empty");
            }
            if (text.chars().anyMatch(Character::isISOControl)) {
                throw error(node.at(), path, "must be one line without control characters");
            }
            return text;
        }

        private List<String> distinctStrings(Node node, String path, String what) throws WorkflowException {
            if (!(node instanceof ListNode list)) {
                throw error(node.at(), path, "expected a list of strings, got " + node.kind().described);
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
        private String string(Node node, String path, String expected) throws WorkflowException {
            if (node instanceof YamlTree.Scalar scalar && scalar.kind() != Kind.NULL && scalar.kind() != Kind.OTHER) {
                return scalar.text();
            }
            throw error(node.at(), path, "expected " + expected + " (a string), got " + node.kind().described);
        }

        private MapNode map(Node node, String path, String expected) throws WorkflowException {
            if (node instanceof MapNode map) {
                return map;
            }
            throw error(node.at(), path, "expected " + expected + ", got " + node.kind().described);
        }

        private void checkName(String name, Position at, String path, String what) throws WorkflowException {
            if (!IDENTIFIER.matcher(name).matches()) {
                throw error(at, path, "'" + name + "' is not a valid " + what
                        + " name (letters, digits and '_', not starting with a digit)");
            }
            if (name.startsWith("KNOTLESS_") || name.equals("CI")) {
                throw error(at, path, "'" + name + "' is reserved: the runner sets CI and KNOTLESS_* itself");
            }
        }

        private void onlyKnown(MapNode map, String path, List<String> known) throws WorkflowException {
            for (Entry entry : map.entries().values()) {
                if (!known.contains(entry.key())) {
                    String suggestion = closest(entry.key(), known);
                    throw error(entry.keyAt(), YamlTree.child(path, entry.key()), "unknown field"
                            + (suggestion != null ? " (did you mean '" + suggestion + "'?)" : "")
                            + "; expected one of " + String.join(", ", known));
                }
            }
        }

        private WorkflowException error(Position at, String path, String problem) {
            return new WorkflowException(file, at.line(), at.column(), path, problem);
        }
    }

    /** The file name without directory and extension: {@code .knotless/workflows/ci.yaml} gives {@code ci}. */
    static String defaultName(String file) {
        String base = file.substring(file.lastIndexOf('/') + 1);
        int dot = base.lastIndexOf('.');
        return dot > 0 ? base.substring(0, dot) : base;
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
