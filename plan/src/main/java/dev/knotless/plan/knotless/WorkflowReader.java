package dev.knotless.plan.knotless;

import dev.knotless.executor.Resources;
import dev.knotless.executor.RunnerId;
import dev.knotless.plan.Matrix;
import dev.knotless.plan.Reports;
import dev.knotless.plan.Service;
import dev.knotless.plan.Step;
import dev.knotless.plan.Triggers;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.FileRead;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Position;
import dev.knotless.plan.yaml.YamlTree;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Walks one workflow file's tree against our schema ({@code docs/reference/workflow.md}), or a
 * dialect's built on it ({@link Schema}): an unknown field, a value of the wrong type, a missing
 * {@code steps} or {@code run} or a bad value is a {@link WorkflowException} naming the file, line,
 * column and field. The parts of a workflow with their own rules have their own readers ({@link
 * TriggersReader}, {@link ResourcesReader}, {@link StepsReader}, {@link GraphReader}); the values
 * they share are {@link Fields}'. One per file, read once.
 */
public final class WorkflowReader {

    static final List<String> WORKFLOW_FIELDS =
            List.of("name", "on", "runners", "image", "timeout", "resources", "variables", "cache", "steps", "reports",
                    "services", "matrix", "needs", "artifacts");
    static final List<String> REPORT_FIELDS = List.of("junit");

    private final String file;
    private final Schema schema;
    private final Fields fields;
    private Position nameAt = Position.START;
    private boolean nameGiven;
    /** Where each of {@code needs} was written, for the errors only the whole set can find. */
    private final List<Position> needsAt = new ArrayList<>();
    private @Nullable Matrix matrix;
    private Position matrixAt = Position.START;
    /** Texts that may hold {@code ${matrix.KEY}}: where, which field, what. */
    private final List<Templated> templated = new ArrayList<>();

    private record Templated(Position at, String path, String text) {}

    /** A reader of {@code file}, whose top level is as {@code schema} says. */
    public WorkflowReader(String file, Schema schema) {
        this.file = file;
        this.schema = schema;
        this.fields = new Fields(file);
    }

    /** The file's workflow and its runs, with where its name and needs were written. */
    public FileRead read(Node root) throws WorkflowException {
        Workflow workflow = workflow(root);
        return new FileRead(workflow, expanded(workflow), nameAt, nameGiven, needsAt);
    }

    /** Fields are checked in the order written, so the first mistake in the file is the one reported. */
    private Workflow workflow(Node root) throws WorkflowException {
        if (!(root instanceof MapNode map)) {
            throw fields.error(root.at(), "", "expected a map of workflow fields (name, on, steps, ...), got "
                    + root.kind().described());
        }
        for (Map.Entry<String, String> refused : schema.refused().entrySet()) {
            Entry written = map.entries().get(refused.getKey());
            if (written != null) {
                throw fields.error(written.keyAt(), refused.getKey(), refused.getValue());
            }
        }
        fields.onlyKnown(map, "", schema.fields());
        String name = schema.defaultName();
        Triggers on = Triggers.DEFAULT;
        List<String> runners = List.of();
        String image = null;
        Duration timeout = null;
        Resources resources = Resources.DEFAULT;
        Map<String, String> variables = Map.of();
        List<String> cache = List.of();
        Reports reports = Reports.NONE;
        List<Service> services = List.of();
        List<String> needs = List.of();
        List<String> artifacts = List.of();
        List<Step> steps = null;
        GraphReader graph = new GraphReader(fields);
        for (Entry entry : map.entries().values()) {
            String path = entry.key();
            Node value = entry.value();
            switch (entry.key()) {
                case "name" -> {
                    name = fields.label(value, path);
                    nameAt = value.at();
                    nameGiven = true;
                    templated.add(new Templated(value.at(), path, name));
                }
                case "on" -> on = new TriggersReader(fields).read(value, path);
                case "runners" -> runners = runnerIds(value, path);
                case "image" -> {
                    image = graph.image(value, path, "alpine:3.20");
                    templated.add(new Templated(value.at(), path, image));
                }
                case "timeout" -> timeout = fields.duration(value, path);
                case "resources" -> resources = new ResourcesReader(fields).read(value, path);
                case "variables" -> {
                    variables = fields.variables(value, path);
                    for (Entry v : ((MapNode) value).entries().values()) {
                        templated.add(new Templated(v.value().at(), YamlTree.child(path, v.key()), variables.get(v.key())));
                    }
                }
                case "services" -> {
                    services = graph.services(value, path);
                    for (Entry svc : ((MapNode) value).entries().values()) {
                        Entry img = ((MapNode) svc.value()).entries().get("image");
                        templated.add(new Templated(img.value().at(), YamlTree.child(path, svc.key()) + ".image",
                                services.stream().filter(x -> x.name().equals(svc.key())).findFirst().orElseThrow().image()));
                    }
                }
                case "matrix" -> {
                    matrix = graph.matrix(value, path);
                    matrixAt = value.at();
                }
                case "needs" -> needs = graph.needs(value, path, needsAt);
                case "artifacts" -> artifacts = graph.artifacts(value, path);
                case "cache" -> cache = fields.distinctStrings(value, path, "cache entry");
                case "steps" -> steps = new StepsReader(fields).read(value, path);
                case "reports" -> reports = reports(value, path);
                default -> {
                    if (!schema.leftAlone().contains(entry.key())) {
                        throw new IllegalStateException(entry.key());
                    }
                }
            }
        }
        if (steps == null) {
            throw fields.error(map.at(), "steps", "required: a workflow needs at least one step");
        }
        for (Templated t : templated) {
            for (String key : Expansion.keys(t.text())) {
                if (matrix == null) {
                    throw fields.error(t.at(), t.path(), "uses ${matrix." + key + "} but the workflow has no matrix");
                }
                if (!matrix.axes().containsKey(key)) {
                    throw fields.error(t.at(), t.path(), "uses ${matrix." + key + "}, which is not a key of the matrix ("
                            + String.join(", ", matrix.axes().keySet()) + ")");
                }
            }
        }
        return new Workflow(name, file, on, runners, image, timeout, resources, variables, cache, steps, reports, services,
                needs, artifacts, null);
    }

    /** {@code workflow}'s combinations; itself when it has no matrix. */
    private List<Workflow> expanded(Workflow workflow) throws WorkflowException {
        if (matrix == null) {
            return List.of(workflow);
        }
        List<Workflow> combinations = Expansion.expand(workflow, matrix);
        if (combinations.stream().map(Workflow::name).distinct().count() != combinations.size()) {
            throw fields.error(matrixAt, "matrix", "two combinations would have the same name");
        }
        return combinations;
    }

    /** {@code {junit: [patterns]}}: relative to /work, without '..'. */
    private Reports reports(Node node, String path) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map such as {junit: [\"**/TEST-*.xml\"]}");
        fields.onlyKnown(map, path, REPORT_FIELDS);
        Entry junit = map.entries().get("junit");
        if (junit == null) {
            return Reports.NONE;
        }
        String junitPath = path + ".junit";
        List<String> patterns = fields.distinctStrings(junit.value(), junitPath, "report pattern");
        if (patterns.isEmpty()) {
            throw fields.error(junit.value().at(), junitPath, "is empty; leave 'junit' out to read no reports");
        }
        for (int i = 0; i < patterns.size(); i++) {
            String p = patterns.get(i);
            if (p.startsWith("/") || java.util.Arrays.asList(p.split("/")).contains("..")) {
                throw fields.error(((YamlTree.ListNode) junit.value()).items().get(i).at(), junitPath + "[" + i + "]",
                        "'" + p + "' must be a pattern relative to /work, without '..'");
            }
        }
        return new Reports(patterns);
    }

    /** A pin no runner could have as its id would never match; saying so beats a workflow that never runs. */
    private List<String> runnerIds(Node node, String path) throws WorkflowException {
        List<String> ids = fields.distinctStrings(node, path, "runner id");
        for (int i = 0; i < ids.size(); i++) {
            if (!RunnerId.valid(ids.get(i))) {
                Node item = ((YamlTree.ListNode) node).items().get(i);
                throw fields.error(item.at(), path + "[" + i + "]", "not a runner id: '" + ids.get(i) + "' (an id is "
                        + RunnerId.GRAMMAR + ")");
            }
        }
        return ids;
    }
}
