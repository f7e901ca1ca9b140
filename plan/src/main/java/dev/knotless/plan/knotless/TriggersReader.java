package dev.knotless.plan.knotless;

import dev.knotless.checks.Event;
import dev.knotless.plan.Input;
import dev.knotless.plan.Schedule;
import dev.knotless.plan.Triggers;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.Kind;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a workflow's {@code on}: an event, a list of events, or a map of events to branch filters
 * (and, for a push and a pull request, path filters).
 */
record TriggersReader(Fields fields) {

    static final List<String> TRIGGER_FIELDS = List.of("branches");
    /** A push and a pull request change files: they may filter on them. */
    static final List<String> CHANGE_FIELDS = List.of("branches", "paths");
    static final List<String> MANUAL_FIELDS = List.of("branches", "inputs");
    static final List<String> INPUT_FIELDS = List.of("default", "options", "required", "description");
    static final List<String> SCHEDULE_FIELDS = List.of("cron", "branches", "timezone");
    /** More would be a runner's whole capacity spent on one workflow's clock. */
    static final int MAX_SCHEDULES = 16;

    Triggers read(Node node, String path) throws WorkflowException {
        Map<Event, List<String>> branches = new EnumMap<>(Event.class);
        Map<Event, List<String>> paths = new EnumMap<>(Event.class);
        Map<String, Input> inputs = Map.of();
        List<Schedule> schedules = List.of();
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
                    if (event == Event.SCHEDULE) {
                        schedules = schedules(entry.value(), eventPath);
                        continue;
                    }
                    boolean changes = event == Event.PUSH || event == Event.PULL;
                    branches.put(event, branchFilter(entry.value(), eventPath,
                            event == Event.MANUAL ? MANUAL_FIELDS : changes ? CHANGE_FIELDS : TRIGGER_FIELDS));
                    if (changes && entry.value() instanceof MapNode filters && filters.entries().containsKey("paths")) {
                        paths.put(event, pathFilter(filters.entries().get("paths").value(), eventPath + ".paths"));
                    }
                    if (event == Event.MANUAL && entry.value() instanceof MapNode manual && manual.entries().containsKey("inputs")) {
                        inputs = inputs(manual.entries().get("inputs").value(), eventPath + ".inputs");
                    }
                }
            }
            default -> throw fields.error(node.at(), path,
                    "expected an event, a list of events or a map of events, got " + node.kind().described());
        }
        return new Triggers(branches, paths, inputs, schedules);
    }

    /**
     * {@code [GLOB, ...]}: the run goes on when a changed file is selected; a glob written {@code
     * !GLOB} takes files out again (the last that matches decides), since a tree is too large to
     * list what counts.
     */
    private List<String> pathFilter(Node node, String path) throws WorkflowException {
        List<String> globs = fields.distinctStrings(node, path, "path pattern");
        if (globs.isEmpty()) {
            throw fields.error(node.at(), path, "is empty; leave 'paths' out to run on every change");
        }
        for (int i = 0; i < globs.size(); i++) {
            String glob = globs.get(i);
            if (glob.equals(Triggers.EXCLUDE) || glob.indexOf('!', 1) >= 0) {
                throw fields.error(((YamlTree.ListNode) node).items().get(i).at(), path + "[" + i + "]",
                        "'" + glob + "': '!' excludes only at the start of a pattern, before a glob");
            }
        }
        return globs;
    }

    private Event event(Node node, String path) throws WorkflowException {
        String text = fields.string(node, path, "an event");
        Event event;
        try {
            event = Event.parse(text);
        } catch (IllegalArgumentException e) {
            throw fields.error(node.at(), path, e.getMessage());
        }
        if (event == Event.SCHEDULE) {
            throw fields.error(node.at(), path,
                    "schedule needs its times: on: {schedule: [{cron: \"0 3 * * 1-5\"}]}");
        }
        return event;
    }

    /** {@code [{cron, branches, timezone}, ...]}. */
    private List<Schedule> schedules(Node node, String path) throws WorkflowException {
        if (!(node instanceof ListNode list) || list.items().isEmpty()) {
            throw fields.error(node.at(), path, "expected a list of times such as [{cron: \"0 3 * * 1-5\"}], got "
                    + (node instanceof ListNode ? "an empty list" : node.kind().described()));
        }
        if (list.items().size() > MAX_SCHEDULES) {
            throw fields.error(list.at(), path, list.items().size() + " schedules; at most " + MAX_SCHEDULES);
        }
        List<Schedule> schedules = new java.util.ArrayList<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < list.items().size(); i++) {
            String itemPath = path + "[" + i + "]";
            MapNode map = fields.map(list.items().get(i), itemPath, "a map such as {cron: \"0 3 * * 1-5\", branches: [main]}");
            fields.onlyKnown(map, itemPath, SCHEDULE_FIELDS);
            Entry cron = map.entries().get("cron");
            if (cron == null) {
                throw fields.error(map.at(), itemPath + ".cron", "is missing: when to run, such as \"0 3 * * 1-5\"");
            }
            String expression = fields.string(cron.value(), itemPath + ".cron", "a cron expression");
            java.time.ZoneId zone = java.time.ZoneId.of("UTC");
            Entry timezone = map.entries().get("timezone");
            if (timezone != null) {
                String id = fields.string(timezone.value(), itemPath + ".timezone", "a time zone such as Europe/Berlin");
                try {
                    zone = java.time.ZoneId.of(id);
                } catch (java.time.DateTimeException e) {
                    throw fields.error(timezone.value().at(), itemPath + ".timezone",
                            "'" + id + "' is not a time zone; use a name such as Europe/Berlin or UTC");
                }
            }
            List<String> onBranches = List.of();
            Entry branchList = map.entries().get("branches");
            if (branchList != null) {
                onBranches = fields.distinctStrings(branchList.value(), itemPath + ".branches", "branch");
                if (onBranches.isEmpty()) {
                    throw fields.error(branchList.value().at(), itemPath + ".branches",
                            "is empty; leave 'branches' out to mean the default branch");
                }
                for (int b = 0; b < onBranches.size(); b++) {
                    String branch = onBranches.get(b);
                    if (branch.chars().anyMatch(c -> c == '*' || c == '?' || c == '[')) {
                        throw fields.error(branchList.value().at(), itemPath + ".branches[" + b + "]",
                                "'" + branch + "' is a pattern; a schedule names its branches exactly");
                    }
                }
            }
            Schedule schedule;
            try {
                schedule = new Schedule(expression, zone, onBranches);
            } catch (IllegalArgumentException e) {
                throw fields.error(cron.value().at(), itemPath + ".cron", e.getMessage());
            }
            if (!seen.add(schedule.key())) {
                throw fields.error(cron.value().at(), itemPath + ".cron", "'" + expression + "' is listed twice");
            }
            schedules.add(schedule);
        }
        return List.copyOf(schedules);
    }

    /** {@code null}, {@code {}} or {@code {branches: [...]}}. */
    private List<String> branchFilter(Node node, String path, List<String> known) throws WorkflowException {
        if (node.kind() == Kind.NULL) {
            return List.of();
        }
        if (!(node instanceof MapNode map)) {
            throw fields.error(node.at(), path, "expected a map such as {branches: [main]} or nothing, got "
                    + node.kind().described());
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
        for (int i = 0; i < globs.size(); i++) {
            if (globs.get(i).startsWith(Triggers.EXCLUDE)) {
                throw fields.error(((YamlTree.ListNode) branches.value()).items().get(i).at(), branchesPath + "[" + i + "]",
                        "'" + globs.get(i) + "': a branch pattern cannot start with '!' (list the branches that run it)");
            }
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
                        throw fields.error(value.at(), fieldPath, "expected true or false, got " + value.kind().described());
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
