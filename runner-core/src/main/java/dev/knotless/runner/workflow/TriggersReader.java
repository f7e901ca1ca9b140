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

    private final Fields fields;

    TriggersReader(Fields fields) {
        this.fields = fields;
    }

    Triggers read(Node node, String path) throws WorkflowException {
        Map<Event, List<String>> branches = new EnumMap<>(Event.class);
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
                    branches.put(event, branchFilter(entry.value(), eventPath));
                }
            }
            default -> throw fields.error(node.at(), path,
                    "expected an event, a list of events or a map of events, got " + node.kind().described);
        }
        return new Triggers(branches);
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
    private List<String> branchFilter(Node node, String path) throws WorkflowException {
        if (node.kind() == Kind.NULL) {
            return List.of();
        }
        if (!(node instanceof MapNode map)) {
            throw fields.error(node.at(), path, "expected a map such as {branches: [main]} or nothing, got "
                    + node.kind().described);
        }
        fields.onlyKnown(map, path, TRIGGER_FIELDS);
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
}
