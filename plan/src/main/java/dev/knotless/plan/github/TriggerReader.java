package dev.knotless.plan.github;

import dev.knotless.checks.Event;
import dev.knotless.plan.Input;
import dev.knotless.plan.Schedule;
import dev.knotless.plan.Triggers;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.Kind;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code on}: a name, a list of names, or a map of events to their filters. The events that
 * happen here are {@code push}, {@code pull_request}, {@code merge_group} (a merge queue's batch),
 * {@code workflow_dispatch} and {@code schedule}, with their branch filters and, for pushes and
 * pull requests, their path filters; every other of GitHub's events, and every filter this runner
 * does not carry out, fails closed at its line.
 */
final class TriggerReader {

    static final Keys PUSH = new Keys(List.of("branches", "branches-ignore", "paths", "paths-ignore"), Map.of(
            "tags", "tag events are not carried out yet; a workflow that filters on tags would never run here",
            "tags-ignore", "tag events are not carried out yet"));
    static final Keys PULL_REQUEST = new Keys(List.of("branches", "branches-ignore", "paths", "paths-ignore", "types"),
            Map.of("tags", "a pull request has no tag", "tags-ignore", "a pull request has no tag"));
    static final Keys MERGE_GROUP = new Keys(List.of("branches", "branches-ignore", "types"), Map.of());
    static final Keys DISPATCH = new Keys(List.of("inputs"), Map.of());
    static final Keys INPUT = new Keys(List.of("description", "required", "default", "type", "options"), Map.of());
    static final Keys CRON = new Keys(List.of("cron"), Map.of());

    /** The pull request activities that are the forge's "opened or updated", which is when this runner runs one. */
    static final Set<String> PULL_TYPES = Set.of("opened", "synchronize", "reopened");
    static final Set<String> INPUT_TYPES = Set.of("string", "boolean", "choice", "number");
    private static final String EVENTS = "push, pull_request, merge_group, workflow_dispatch and schedule";

    private final Fields fields;
    private final Problems problems;

    TriggerReader(Fields fields, Problems problems) {
        this.fields = fields;
        this.problems = problems;
    }

    Triggers read(Node node, String path) {
        Map<String, Node> events = new LinkedHashMap<>();
        Map<String, Entry> written = new LinkedHashMap<>();
        switch (node) {
            case Scalar s when s.kind() == Kind.STRING -> events.put(s.text(), new Scalar(Kind.NULL, "", s.at()));
            case ListNode list -> {
                for (int i = 0; i < list.items().size(); i++) {
                    int index = i;
                    problems.read(() -> fields.string(list.items().get(index), path + "[" + index + "]", "an event name"))
                            .ifPresent(name -> events.put(name, new Scalar(Kind.NULL, "", list.items().get(index).at())));
                }
            }
            case MapNode map -> map.entries().values().forEach(e -> {
                events.put(e.key(), e.value());
                written.put(e.key(), e);
            });
            default -> {
                problems.add(fields.error(node.at(), path, "expected an event, a list of events or a map of events, got "
                        + node.kind().described()));
                return Triggers.of();
            }
        }
        Map<Event, List<String>> branches = new EnumMap<>(Event.class);
        Map<Event, List<String>> paths = new EnumMap<>(Event.class);
        Map<String, Input> inputs = new LinkedHashMap<>();
        List<Schedule> schedules = new ArrayList<>();
        for (Map.Entry<String, Node> event : events.entrySet()) {
            String eventPath = YamlTree.child(path, event.getKey());
            Node value = event.getValue();
            YamlTree.Position keyAt = written.containsKey(event.getKey()) ? written.get(event.getKey()).keyAt() : value.at();
            switch (event.getKey()) {
                case "push" -> {
                    branches.put(Event.PUSH, branchFilter(value, eventPath, PUSH, null));
                    pathFilter(value, eventPath).ifPresent(globs -> paths.put(Event.PUSH, globs));
                }
                case "pull_request" -> {
                    branches.put(Event.PULL, branchFilter(value, eventPath, PULL_REQUEST, PULL_TYPES));
                    pathFilter(value, eventPath).ifPresent(globs -> paths.put(Event.PULL, globs));
                }
                case "merge_group" -> branches.put(Event.BATCH, branchFilter(value, eventPath, MERGE_GROUP,
                        Set.of("checks_requested")));
                case "workflow_dispatch" -> {
                    branches.put(Event.MANUAL, List.of());
                    inputs.putAll(dispatchInputs(value, eventPath));
                }
                case "schedule" -> schedules.addAll(schedules(value, eventPath));
                case "pull_request_target" -> problems.add(fields.error(keyAt, eventPath, "not supported here: it runs the"
                        + " base branch's workflow with its secrets for code of a pull request; use pull_request, whose"
                        + " runs from other repositories get no secrets here"));
                case "workflow_call" -> problems.add(fields.error(keyAt, eventPath,
                        "not supported here: reusable workflows are not carried out yet"));
                default -> problems.add(fields.error(keyAt, eventPath, "event '" + event.getKey()
                        + "' does not happen on this runner, which runs workflows on " + EVENTS
                        + "; remove it, or keep this workflow where that event happens"));
            }
        }
        return new Triggers(branches, paths, inputs, schedules);
    }

    /**
     * {@code branches} or {@code branches-ignore} (not both, as GitHub says) as the plan's globs,
     * an exclusion written {@code !GLOB}; nothing for every branch.
     */
    private List<String> branchFilter(Node node, String path, Keys keys, @Nullable Set<String> types) {
        if (node.kind() == Kind.NULL) {
            return List.of();
        }
        if (!(node instanceof MapNode map)) {
            problems.add(fields.error(node.at(), path, "expected a map such as {branches: [main]} or nothing, got "
                    + node.kind().described()));
            return List.of();
        }
        keys.check(map, path, fields, problems);
        Entry typesEntry = map.entries().get("types");
        if (typesEntry != null && types != null) {
            problems.read(() -> stringList(typesEntry.value(), path + ".types", "an activity type")).ifPresent(written -> {
                for (int i = 0; i < written.size(); i++) {
                    if (!types.contains(written.get(i))) {
                        problems.add(fields.error(itemAt(typesEntry.value(), i), path + ".types[" + i + "]", "activity '"
                                + written.get(i) + "' is not one this runner runs on; it runs on " + String.join(", ",
                                types.stream().sorted().toList()) + " (the forge's opened or updated)"));
                    }
                }
            });
        }
        return filter(map, path, "branches", "branch").orElse(List.of());
    }

    /**
     * {@code paths} or {@code paths-ignore} of a push or pull request (not both), as the plan's
     * globs; empty when neither is written. The event's other keys were checked by {@link #branchFilter}.
     */
    private Optional<List<String>> pathFilter(Node node, String path) {
        return node instanceof MapNode map ? filter(map, path, "paths", "path") : Optional.empty();
    }

    /**
     * {@code NAME} or {@code NAME-ignore} (not both, as GitHub says) as the plan's globs, an
     * exclusion written {@code !GLOB}; empty when neither is written, or when none of its patterns
     * could be read (each then is a problem of the file, which is refused for it).
     */
    private Optional<List<String>> filter(MapNode map, String path, String name, String what) {
        Entry only = map.entries().get(name);
        Entry ignore = map.entries().get(name + "-ignore");
        if (only != null && ignore != null) {
            problems.add(fields.error(ignore.keyAt(), path + "." + name + "-ignore", "'" + name + "' and '" + name
                    + "-ignore' cannot both filter one event; write exclusions in '" + name + "' as '!PATTERN'"));
            return Optional.empty();
        }
        Entry filter = only != null ? only : ignore;
        if (filter == null) {
            return Optional.empty();
        }
        String filterPath = path + "." + filter.key();
        List<String> globs = new ArrayList<>();
        problems.read(() -> stringList(filter.value(), filterPath, "a " + what + " pattern")).ifPresent(patterns -> {
            if (patterns.isEmpty()) {
                problems.add(fields.error(filter.value().at(), filterPath, "lists no pattern; remove it to run "
                        + (name.equals("paths") ? "on every change" : "on every branch")));
            }
            for (int i = 0; i < patterns.size(); i++) {
                String pattern = patterns.get(i);
                int index = i;
                problems.read(() -> pattern(pattern, itemAt(filter.value(), index), filterPath + "[" + index + "]"))
                        .ifPresent(glob -> globs.add(ignore != null ? "!" + glob : glob));
            }
        });
        return globs.isEmpty() ? Optional.empty() : Optional.of(globs);
    }

    /**
     * GitHub's filter pattern as the plan's glob: {@code *}, {@code **} and a leading {@code !} mean
     * the same in both. GitHub's {@code ?} (the character before it, or not), {@code +} and
     * {@code [...]} are regular-expression-like and mean something else in the plan's globs, so
     * they fail closed rather than match other branches than the author meant.
     */
    private String pattern(String pattern, YamlTree.Position at, String path) throws WorkflowException {
        if (pattern.isEmpty() || pattern.equals("!")) {
            throw fields.error(at, path, "is empty");
        }
        for (char c : new char[] {'?', '+', '[', ']'}) {
            if (pattern.indexOf(c) >= 0) {
                throw fields.error(at, path, "'" + pattern + "': the pattern character '" + c
                        + "' is not supported yet; use '*' and '**'");
            }
        }
        if (pattern.indexOf('!', 1) >= 0) {
            throw fields.error(at, path, "'" + pattern + "': '!' excludes only at the start of a pattern");
        }
        return pattern;
    }

    private Map<String, Input> dispatchInputs(Node node, String path) {
        Map<String, Input> inputs = new LinkedHashMap<>();
        if (node.kind() == Kind.NULL) {
            return inputs;
        }
        if (!(node instanceof MapNode map)) {
            problems.add(fields.error(node.at(), path, "expected a map such as {inputs: {...}} or nothing, got "
                    + node.kind().described()));
            return inputs;
        }
        DISPATCH.check(map, path, fields, problems);
        Entry declared = map.entries().get("inputs");
        if (declared == null) {
            return inputs;
        }
        String inputsPath = path + ".inputs";
        problems.read(() -> fields.map(declared.value(), inputsPath, "a map of input names to {type, default, ...}"))
                .ifPresent(all -> all.entries().values().forEach(entry -> problems.read(
                        () -> input(entry, YamlTree.child(inputsPath, entry.key()))).ifPresent(i -> inputs.put(i.name(), i))));
        return inputs;
    }

    private Input input(Entry entry, String path) throws WorkflowException {
        String name = entry.key();
        if (!name.matches("[A-Za-z_][A-Za-z0-9_-]*")) {
            throw fields.error(entry.keyAt(), path, "'" + name + "' is not a valid input name (letters, digits, '_' and '-',"
                    + " starting with a letter or '_')");
        }
        if (entry.value().kind() == Kind.NULL) {
            return new Input(name, null, List.of(), false, null);
        }
        MapNode map = fields.map(entry.value(), path, "a map such as {type: string, default: info}");
        INPUT.check(map, path, fields, problems);
        String type = "string";
        String defaultValue = null;
        List<String> options = List.of();
        boolean required = false;
        String description = null;
        for (Entry field : map.entries().values()) {
            String fieldPath = path + "." + field.key();
            Node value = field.value();
            switch (field.key()) {
                case "type" -> {
                    type = fields.string(value, fieldPath, "an input type");
                    if (type.equals("environment")) {
                        throw fields.error(value.at(), fieldPath, "deployment environments are not carried out here; use"
                                + " type: choice with the names as options");
                    }
                    if (!INPUT_TYPES.contains(type)) {
                        throw fields.error(value.at(), fieldPath, "'" + type + "' is not an input type; expected one of "
                                + String.join(", ", INPUT_TYPES.stream().sorted().toList()));
                    }
                }
                case "default" -> defaultValue = fields.string(value, fieldPath, "a default value");
                case "options" -> options = stringList(value, fieldPath, "an option");
                case "required" -> required = bool(value, fieldPath);
                case "description" -> description = fields.string(value, fieldPath, "a description");
                default -> { }
            }
        }
        if (type.equals("choice") && options.isEmpty()) {
            throw fields.error(map.at(), path + ".options", "a choice input needs its options");
        }
        if (!type.equals("choice") && !options.isEmpty()) {
            throw fields.error(map.entries().get("options").keyAt(), path + ".options", "only a choice input has options");
        }
        if (type.equals("boolean")) {
            options = List.of("true", "false");
            defaultValue = defaultValue == null ? "false" : defaultValue.toLowerCase(Locale.ROOT);
        }
        if (defaultValue != null && !options.isEmpty() && !options.contains(defaultValue)) {
            throw fields.error(map.entries().get("default").value().at(), path + ".default",
                    "'" + defaultValue + "' is not one of the options " + String.join(", ", options));
        }
        if (type.equals("number") && defaultValue != null && !defaultValue.matches("-?[0-9]+(\\.[0-9]+)?")) {
            throw fields.error(map.entries().get("default").value().at(), path + ".default", "'" + defaultValue
                    + "' is not a number");
        }
        // GitHub lets a required input keep a default, which a dispatch then shows filled in.
        Input.Kind kind = switch (type) {
            case "boolean" -> Input.Kind.BOOLEAN;
            case "number" -> Input.Kind.NUMBER;
            default -> Input.Kind.TEXT;
        };
        return new Input(name, defaultValue, options, required && defaultValue == null, description, kind);
    }

    private List<Schedule> schedules(Node node, String path) {
        List<Schedule> schedules = new ArrayList<>();
        if (!(node instanceof ListNode list)) {
            problems.add(fields.error(node.at(), path, "expected a list such as [{cron: '0 3 * * 1-5'}], got "
                    + node.kind().described()));
            return schedules;
        }
        for (int i = 0; i < list.items().size(); i++) {
            String itemPath = path + "[" + i + "]";
            Node item = list.items().get(i);
            problems.read(() -> {
                MapNode map = fields.map(item, itemPath, "a map such as {cron: '0 3 * * 1-5'}");
                CRON.check(map, itemPath, fields, problems);
                Entry cron = map.entries().get("cron");
                if (cron == null) {
                    throw fields.error(map.at(), itemPath + ".cron", "required");
                }
                String text = fields.string(cron.value(), itemPath + ".cron", "a cron expression");
                try {
                    // GitHub reads every schedule in UTC and runs it on the default branch.
                    return new Schedule(text, ZoneOffset.UTC, List.of());
                } catch (IllegalArgumentException e) {
                    throw fields.error(cron.value().at(), itemPath + ".cron", e.getMessage());
                }
            }).ifPresent(schedules::add);
        }
        return schedules;
    }

    /** A string, or a list of strings (GitHub takes either wherever a list of names goes). */
    private List<String> stringList(Node node, String path, String what) throws WorkflowException {
        if (node instanceof Scalar) {
            return List.of(fields.string(node, path, what));
        }
        if (!(node instanceof ListNode list)) {
            throw fields.error(node.at(), path, "expected " + what + " or a list of them, got " + node.kind().described());
        }
        List<String> values = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            values.add(fields.string(list.items().get(i), path + "[" + i + "]", what));
        }
        return values;
    }

    private boolean bool(Node node, String path) throws WorkflowException {
        if (node.kind() != Kind.BOOLEAN) {
            throw fields.error(node.at(), path, "expected true or false, got " + node.kind().described());
        }
        return Boolean.parseBoolean(((Scalar) node).text().toLowerCase(Locale.ROOT));
    }

    private static YamlTree.Position itemAt(Node node, int index) {
        return node instanceof ListNode list ? list.items().get(index).at() : node.at();
    }
}
