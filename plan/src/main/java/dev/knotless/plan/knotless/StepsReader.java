package dev.knotless.plan.knotless;

import dev.knotless.plan.Retry;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepCondition;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads a workflow's {@code steps}: each one's name, script, timeout and secrets, and how it is run:
 * its own variables, working directory, retries, whether it may fail, and when it runs.
 */
record StepsReader(Fields fields) {

    static final List<String> STEP_FIELDS = List.of("name", "run", "timeout", "secrets", "env", "working-directory", "retry",
            "continue-on-error", "if");
    static final List<String> RETRY_FIELDS = List.of("max", "exit-codes");

    List<Step> read(Node node, String path) throws WorkflowException {
        if (!(node instanceof ListNode list)) {
            throw fields.error(node.at(), path, "expected a list of steps, got " + node.kind().described());
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
        Map<String, String> env = Map.of();
        Entry envEntry = null;
        String workingDirectory = null;
        Retry retry = null;
        boolean continueOnError = false;
        StepCondition condition = StepCondition.SUCCESS;
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
                case "env" -> {
                    env = fields.variables(value, fieldPath);
                    envEntry = entry;
                }
                case "working-directory" -> workingDirectory = workingDirectory(value, fieldPath);
                case "retry" -> retry = retry(value, fieldPath);
                case "continue-on-error" -> continueOnError = bool(value, fieldPath);
                case "if" -> condition = condition(value, fieldPath);
                default -> throw new IllegalStateException(entry.key());
            }
        }
        if (script == null) {
            throw fields.error(map.at(), path + ".run", "required: the script this step runs");
        }
        if (envEntry != null) {
            for (String secret : secrets) {
                if (env.containsKey(secret)) {
                    // a value in the file must never stand in for a granted secret, nor hide it
                    MapNode envMap = (MapNode) envEntry.value();
                    throw fields.error(envMap.entries().get(secret).keyAt(), path + ".env." + secret,
                            "'" + secret + "' is also one of this step's secrets; a step variable cannot share a secret's name");
                }
            }
        }
        return new Step(name, script, timeout, secrets, env, workingDirectory, retry, continueOnError, condition);
    }

    /** A directory under /work: relative, without '..', written as a plain path; null for /work itself. */
    private String workingDirectory(Node node, String path) throws WorkflowException {
        String text = fields.string(node, path, "a directory relative to /work");
        if (text.isBlank() || text.chars().anyMatch(Character::isISOControl)) {
            throw fields.error(node.at(), path, "must be a directory relative to /work, on one line");
        }
        if (text.startsWith("/")) {
            throw fields.error(node.at(), path, "'" + text + "' is absolute; give a directory relative to /work, such as sub/dir");
        }
        List<String> parts = new ArrayList<>();
        for (String part : text.split("/")) {
            if (part.equals("..")) {
                throw fields.error(node.at(), path, "'" + text + "' leaves /work ('..'); give a directory inside it");
            }
            if (!part.isEmpty() && !part.equals(".")) {
                parts.add(part);
            }
        }
        return parts.isEmpty() ? null : String.join("/", parts);
    }

    private Retry retry(Node node, String path) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map such as {max: 2, exit-codes: [1]}");
        fields.onlyKnown(map, path, RETRY_FIELDS);
        Entry maxEntry = map.entries().get("max");
        if (maxEntry == null) {
            throw fields.error(map.at(), path + ".max", "required: how many times to try again, 1 to " + Retry.MOST);
        }
        int max = integer(maxEntry.value(), path + ".max", 1, Retry.MOST, "a number of attempts after the first");
        java.util.Set<Integer> codes = new java.util.TreeSet<>();
        Entry codesEntry = map.entries().get("exit-codes");
        if (codesEntry != null) {
            if (!(codesEntry.value() instanceof ListNode list) || list.items().isEmpty()) {
                throw fields.error(codesEntry.value().at(), path + ".exit-codes",
                        "expected a list of exit codes (1 to 255), such as [1, 137]; leave it out to retry any failure");
            }
            for (int i = 0; i < list.items().size(); i++) {
                String itemPath = path + ".exit-codes[" + i + "]";
                int code = integer(list.items().get(i), itemPath, 1, 255, "an exit code");
                if (!codes.add(code)) {
                    throw fields.error(list.items().get(i).at(), itemPath, "exit code " + code + " is listed twice");
                }
            }
        }
        return new Retry(max, codes);
    }

    private int integer(Node node, String path, int least, int most, String what) throws WorkflowException {
        if (node.kind() == YamlTree.Kind.NUMBER) {
            try {
                int value = Integer.parseInt(((YamlTree.Scalar) node).text());
                if (value >= least && value <= most) {
                    return value;
                }
            } catch (NumberFormatException e) {
                // not a whole number: said below
            }
        }
        throw fields.error(node.at(), path, "expected " + what + ", a whole number from " + least + " to " + most
                + ", got " + (node instanceof YamlTree.Scalar scalar ? "'" + scalar.text() + "'" : node.kind().described()));
    }

    private boolean bool(Node node, String path) throws WorkflowException {
        if (node.kind() != YamlTree.Kind.BOOLEAN) {
            throw fields.error(node.at(), path, "expected true or false, got " + node.kind().described());
        }
        return Boolean.parseBoolean(((YamlTree.Scalar) node).text().toLowerCase(java.util.Locale.ROOT));
    }

    private StepCondition condition(Node node, String path) throws WorkflowException {
        String text = fields.string(node, path, "a condition").strip();
        for (StepCondition c : StepCondition.values()) {
            if (c.expression().equals(text)) {
                return c;
            }
        }
        throw fields.error(node.at(), path, "'" + text + "' is not a condition this runner knows; expected one of "
                + java.util.Arrays.stream(StepCondition.values()).map(StepCondition::expression)
                        .collect(java.util.stream.Collectors.joining(", ")));
    }

    private List<String> secrets(Node node, String path) throws WorkflowException {
        if (!(node instanceof ListNode list)) {
            throw fields.error(node.at(), path, "expected a list of secret names, got " + node.kind().described());
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
