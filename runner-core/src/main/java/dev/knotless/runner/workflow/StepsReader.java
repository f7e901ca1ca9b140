package dev.knotless.runner.workflow;

import dev.knotless.runner.workflow.YamlTree.Entry;
import dev.knotless.runner.workflow.YamlTree.ListNode;
import dev.knotless.runner.workflow.YamlTree.MapNode;
import dev.knotless.runner.workflow.YamlTree.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a workflow's {@code steps}: each one's name, script, timeout and secrets.
 */
final class StepsReader {

    static final List<String> STEP_FIELDS = List.of("name", "run", "timeout", "secrets");

    private final Fields fields;

    StepsReader(Fields fields) {
        this.fields = fields;
    }

    List<Step> read(Node node, String path) throws WorkflowException {
        if (!(node instanceof ListNode list)) {
            throw fields.error(node.at(), path, "expected a list of steps, got " + node.kind().described);
        }
        if (list.items().isEmpty()) {
            throw fields.error(list.at(), path, "is empty; a workflow needs at least one step");
        }
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            steps.add(step(list.items().get(i), path + "[" + i + "]", i + 1));
        }
        return steps;
    }

    private Step step(Node node, String path, int number) throws WorkflowException {
        MapNode map = fields.map(node, path, "a step, a map with at least 'run'");
        fields.onlyKnown(map, path, STEP_FIELDS);
        String name = "step " + number;
        String script = null;
        Duration timeout = null;
        List<String> secrets = List.of();
        for (Entry entry : map.entries().values()) {
            String fieldPath = path + "." + entry.key();
            Node value = entry.value();
            switch (entry.key()) {
                case "name" -> name = fields.label(value, fieldPath);
                case "run" -> {
                    script = fields.string(value, fieldPath, "a script");
                    if (script.isBlank()) {
                        throw fields.error(value.at(), fieldPath, "is empty; give the script this step runs");
                    }
                }
                case "timeout" -> timeout = fields.duration(value, fieldPath);
                case "secrets" -> secrets = secrets(value, fieldPath);
                default -> throw new IllegalStateException(entry.key());
            }
        }
        if (script == null) {
            throw fields.error(map.at(), path + ".run", "required: the script this step runs");
        }
        return new Step(name, script, timeout, secrets);
    }

    private List<String> secrets(Node node, String path) throws WorkflowException {
        if (!(node instanceof ListNode list)) {
            throw fields.error(node.at(), path, "expected a list of secret names, got " + node.kind().described);
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            Node item = list.items().get(i);
            String itemPath = path + "[" + i + "]";
            String secret = fields.string(item, itemPath, "a secret name");
            fields.checkName(secret, item.at(), itemPath, "secret");
            if (names.contains(secret)) {
                throw fields.error(item.at(), itemPath, "secret '" + secret + "' is listed twice");
            }
            names.add(secret);
        }
        return names;
    }
}
