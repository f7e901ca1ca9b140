package dev.knotless.runner.workflow;

import dev.knotless.checks.Event;
import dev.knotless.runner.workflow.YamlTree.Entry;
import dev.knotless.runner.workflow.YamlTree.Kind;
import dev.knotless.runner.workflow.YamlTree.ListNode;
import dev.knotless.runner.workflow.YamlTree.MapNode;
import dev.knotless.runner.workflow.YamlTree.Node;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a workflow's {@code on}: an event, a list of events, or a map of events to branch filters.
 */
final class TriggersReader {

    static final List<String> TRIGGER_FIELDS = List.of("branches");
    static final List<String> MANUAL_FIELDS = List.of("branches", "inputs");
    static final List<String> INPUT_FIELDS = List.of("default", "options", "required", "description");

    private final Fields fields;

    TriggersReader(Fields fields) {
        this.fields = fields;
    }

    Triggers read(Node node, String path) throws WorkflowException {
        Map<Event, List<String>> branches = new EnumMap<>(Event.class);
        Map<String, Input> inputs = Map.of();
        switch (node) {
            case YamlTree.Scalar scalar when scalar.kind() != Kind.NULL ->
                    branches.put(event(scalar, path), List.of());
            case ListNode list -> {
                if (list.items().isEmpty()) {
                    throw fields.error(list.at(), path, "names no event; list at least one of " + Event.choices());
                }
                for (int i = 0; i < list.items().size(); i++) {
                    Node item = list.items().get(i);
                    Event event = event(item, path + "[" + i + "]");
                    if (branches.put(event, List.of()) != null) {
                        throw fields.error(item.at(), path + "[" + i + "]", "event '" + event.wireName() + "' is listed twice");
                    }
                }
            }
            case MapNode map -> {
                if (map.entries().isEmpty()) {
                    throw fields.error(map.at(), path, "names no event; give at least one of " + Event.choices());
                }
                for (Entry entry : map.entries().values()) {
                    String eventPath = YamlTree.child(path, entry.key());
                    Event event;
                    try {
                        event = Event.parse(entry.key());
                    } catch (IllegalArgumentException e) {
                        throw fields.error(entry.keyAt(), eventPath, e.getMessage());
                    }
                    branches.put(event, branchFilter(entry.value(), eventPath,
                            event == Event.MANUAL ? MANUAL_FIELDS : TRIGGER_FIELDS));
                    if (event == Event.MANUAL && entry.value() instanceof MapNode manual && manual.entries().containsKey("inputs")) {
                        inputs = inputs(manual.entries().get("inputs").value(), eventPath + ".inputs");
                    }
                }
            }
            default -> throw fields.error(node.at(), path,
                    "expected an event, a list of events or a map of events, got " + node.kind().described);
        }
        return new Triggers(branches, inputs);
    }

    private Event event(Node node, String path) throws WorkflowException {
        String text = fields.string(node, path, "an event");
        try {
            return Event.parse(text);
        } catch (IllegalArgumentException e) {
            throw fields.error(node.at(), path, e.getMessage());
        }
    }

    /** {@code null}, {@code {}} or {@code {branches: [...]}}. */
    private List<String> branchFilter(Node node, String path, List<String> known) throws WorkflowException {
        if (node.kind() == Kind.NULL) {
            return List.of();
        }
        if (!(node instanceof MapNode map)) {
            throw fields.error(node.at(), path, "expected a map such as {branches: [main]} or nothing, got "
                    + node.kind().described);
        }
        fields.onlyKnown(map, path, known);
        Entry branches = map.entries().get("branches");
        if (branches == null) {
            return List.of();
        }
        String branchesPath = path + ".branches";
        List<String> globs = fields.distinctStrings(branches.value(), branchesPath, "branch pattern");
        if (globs.isEmpty()) {
            throw fields.error(branches.value().at(), branchesPath,
                    "is empty; leave 'branches' out to mean every branch");
        }
        return globs;
    }

    /** {@code NAME: {default, options, required, description}}; {@code NAME:} alone is an optional input. */
    private Map<String, Input> inputs(Node node, String path) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map of input names to {default, options, required}");
        Map<String, Input> inputs = new java.util.LinkedHashMap<>();
        Map<String, String> byVariable = new java.util.HashMap<>();
        for (Entry entry : map.entries().values()) {
            String name = entry.key();
            String inputPath = YamlTree.child(path, name);
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw fields.error(entry.keyAt(), inputPath, "'" + name
                        + "' is not a valid input name (letters, digits and '_', not starting with a digit)");
            }
            String other = byVariable.put(Input.variable(name), name);
            if (other != null) {
                throw fields.error(entry.keyAt(), inputPath, "input '" + name + "' and input '" + other
                        + "' would both be " + Input.variable(name));
            }
            inputs.put(name, input(name, entry.value(), inputPath));
        }
        return inputs;
    }

    private Input input(String name, Node node, String path) throws WorkflowException {
        if (node.kind() == Kind.NULL) {
            return new Input(name, null, List.of(), false, null);
        }
        MapNode map = fields.map(node, path, "a map such as {default: info, options: [debug, info]} or nothing");
        fields.onlyKnown(map, path, INPUT_FIELDS);
        String defaultValue = null;
        List<String> options = List.of();
        boolean required = false;
        String description = null;
        for (Entry entry : map.entries().values()) {
            String fieldPath = path + "." + entry.key();
            Node value = entry.value();
            switch (entry.key()) {
                case "default" -> defaultValue = fields.string(value, fieldPath, "a default value");
                case "options" -> {
                    options = fields.distinctStrings(value, fieldPath, "option");
                    if (options.isEmpty()) {
                        throw fields.error(value.at(), fieldPath, "is empty; leave 'options' out to allow any value");
                    }
                }
                case "required" -> {
                    if (value.kind() != Kind.BOOLEAN) {
                        throw fields.error(value.at(), fieldPath, "expected true or false, got " + value.kind().described);
                    }
                    required = Boolean.parseBoolean(((YamlTree.Scalar) value).text().toLowerCase(java.util.Locale.ROOT));
                }
                case "description" -> description = fields.label(value, fieldPath);
                default -> throw new IllegalStateException(entry.key());
            }
        }
        if (required && defaultValue != null) {
            throw fields.error(map.entries().get("default").keyAt(), path + ".default",
                    "a required input has no default; drop one of 'required' and 'default'");
        }
        if (defaultValue != null && !options.isEmpty() && !options.contains(defaultValue)) {
            throw fields.error(map.entries().get("default").value().at(), path + ".default",
                    "'" + defaultValue + "' is not one of the options " + String.join(", ", options));
        }
        return new Input(name, defaultValue, options, required, description);
    }
}
