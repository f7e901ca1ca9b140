package dev.knotless.plan;

import dev.knotless.executor.Resources;
import dev.knotless.executor.RunnerId;
import dev.knotless.plan.YamlTree.Entry;
import dev.knotless.plan.YamlTree.Kind;
import dev.knotless.plan.YamlTree.MapNode;
import dev.knotless.plan.YamlTree.Node;
import dev.knotless.plan.YamlTree.Position;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads workflow files into {@link Workflow}s, strictly: an unknown field, a value of the wrong
 * type, a missing {@code steps} or {@code run}, a bad value, a duplicate key or a YAML syntax error
 * is a {@link WorkflowException} naming the file, line, column and field. The schema is in {@code
 * docs/reference/workflow.md}. Stateless and thread-safe.
 *
 * <p>The parts of a workflow with their own rules have their own readers ({@link TriggersReader},
 * {@link ResourcesReader}, {@link StepsReader}); the values they share are {@link Fields}'.
 */
public final class WorkflowParser {

    /** Where a repository keeps its workflows. */
    public static final String DIRECTORY = ".knotless/workflows";

    static final List<String> WORKFLOW_FIELDS =
            List.of("name", "on", "runners", "image", "timeout", "resources", "variables", "cache", "steps", "reports",
                    "services", "matrix", "needs", "artifacts");
    static final List<String> REPORT_FIELDS = List.of("junit");

    private WorkflowParser() {}

    /** Whether a file of the workflow directory is a workflow: its name ends in {@code .yaml} or {@code .yml}. */
    public static boolean isWorkflowFile(String path) {
        return path.endsWith(".yaml") || path.endsWith(".yml");
    }

    /** Nodes all the workflow files of one commit may build together (each file also has its own cap). */
    static final long MAX_NODES_IN_ALL = 1_000_000;

    /**
     * Reads one workflow file.
     *
     * @param file the path shown in errors and kept in {@link Workflow#file()}
     * @throws WorkflowException for the first problem found, in file order
     */
    public static Workflow parse(String file, String yamlText) throws WorkflowException {
        return parseExpanded(file, yamlText).getFirst();
    }

    /** Reads one workflow file into its matrix's combinations (one workflow when it has no matrix). */
    public static List<Workflow> parseExpanded(String file, String yamlText) throws WorkflowException {
        return parseExpanded(file, yamlText, Dialect.KNOTLESS);
    }

    /** As {@link #parseExpanded(String, String)}, for a file of {@code dialect}. */
    public static List<Workflow> parseExpanded(String file, String yamlText, Dialect dialect) throws WorkflowException {
        Reader reader = new Reader(file, dialect);
        return reader.expanded(reader.workflow(YamlTree.read(file, yamlText)));
    }

    /**
     * Reads every workflow file of {@code files} (path to text); other names, such as a README, are
     * left out. Two files may not give their workflows the same name: the later file (by path) is
     * the one in error.
     */
    public static WorkflowSet parseAll(Map<String, String> files) {
        return parseAll(files, Map.of(), MAX_NODES_IN_ALL, Dialect.KNOTLESS);
    }

    /**
     * As {@link #parseAll(Map)}, with the files that were not read ({@code refused}: path to why,
     * such as a file over the mirror's size cap): each is an error of its own workflow file at its
     * first line, and the others are parsed as usual.
     */
    public static WorkflowSet parseAll(Map<String, String> files, Map<String, String> refused) {
        return parseAll(files, refused, MAX_NODES_IN_ALL, Dialect.KNOTLESS);
    }

    /** As {@link #parseAll(Map)}, for files of {@code dialect} (a tangled pipeline's workflows). */
    public static WorkflowSet parseAll(Map<String, String> files, Dialect dialect) {
        return parseAll(files, Map.of(), MAX_NODES_IN_ALL, dialect);
    }

    /** As {@link #parseAll(Map)}, with at most {@code maxNodesInAll} nodes built over all the files. */
    static WorkflowSet parseAll(Map<String, String> files, long maxNodesInAll) {
        return parseAll(files, Map.of(), maxNodesInAll, Dialect.KNOTLESS);
    }

    private static WorkflowSet parseAll(Map<String, String> files, Map<String, String> refused, long maxNodesInAll,
            Dialect dialect) {
        List<Workflow> workflows = new ArrayList<>();
        List<WorkflowException> errors = new ArrayList<>();
        Map<String, String> fileByName = new HashMap<>();
        Map<String, Reader> readers = new HashMap<>();
        long left = maxNodesInAll;
        Map<String, String> all = new TreeMap<>(files);
        refused.keySet().forEach(file -> all.putIfAbsent(file, ""));
        for (Map.Entry<String, String> entry : all.entrySet()) {
            String file = entry.getKey();
            if (!isWorkflowFile(file)) {
                continue;
            }
            Reader reader = new Reader(file, dialect);
            try {
                if (refused.containsKey(file)) {
                    throw new WorkflowException(file, 1, 1, null, "the file " + refused.get(file) + "; it is not read");
                }
                if (left <= 0) {
                    throw new WorkflowException(file, 1, 1, null, "the commit's workflow files build more than "
                            + maxNodesInAll + " YAML nodes in all before this one, which is not read");
                }
                long budget = Math.min(YamlTree.MAX_NODES, left);
                YamlTree.Read read;
                try {
                    read = YamlTree.read(file, entry.getValue(), budget);
                } catch (WorkflowException e) {
                    if (budget < YamlTree.MAX_NODES && e.problem().startsWith(YamlTree.OVER_BUDGET)) {
                        left = 0;
                        throw new WorkflowException(file, e.line(), e.column(), e.field(), "the commit's workflow files build"
                                + " more than " + maxNodesInAll + " YAML nodes in all; this one passes that here");
                    }
                    throw e;
                }
                left -= read.nodes();
                Workflow workflow = reader.workflow(read.root());
                List<Workflow> combinations = reader.expanded(workflow);
                for (String name : java.util.stream.Stream.concat(java.util.stream.Stream.of(workflow.name()),
                        combinations.stream().map(Workflow::name)).distinct().toList()) {
                    String earlier = fileByName.get(name);
                    if (earlier != null) {
                        Position at = reader.nameAt;
                        throw new WorkflowException(file, at.line(), at.column(), "name",
                                "workflow name '" + name + "' is already used by " + earlier
                                        + (reader.nameGiven ? "" : " (set 'name' to tell them apart)"));
                    }
                }
                combinations.forEach(c -> fileByName.put(c.name(), file));
                fileByName.put(workflow.name(), file);
                workflows.addAll(combinations);
                readers.put(workflow.name(), reader);
            } catch (WorkflowException e) {
                errors.add(e);
            }
        }
        return RunGraph.checked(workflows, errors, readers);
    }

    /** Walks one file's tree against the schema. */
    static final class Reader {
        private final String file;
        private final Dialect dialect;
        private final Fields fields;
        Position nameAt = Position.START;
        boolean nameGiven;
        /** Where each of {@code needs} was written, for the errors only the whole set can find. */
        final List<Position> needsAt = new ArrayList<>();
        private Matrix matrix;
        private Position matrixAt = Position.START;
        /** Texts that may hold {@code ${matrix.KEY}}: where, which field, what. */
        private final List<Templated> templated = new ArrayList<>();

        private record Templated(Position at, String path, String text) {}

        Reader(String file, Dialect dialect) {
            this.file = file;
            this.dialect = dialect;
            this.fields = new Fields(file);
        }

        /** Fields are checked in the order written, so the first mistake in the file is the one reported. */
        Workflow workflow(Node root) throws WorkflowException {
            if (!(root instanceof MapNode map)) {
                throw fields.error(root.at(), "", "expected a map of workflow fields (name, on, steps, ...), got "
                        + root.kind().described);
            }
            if (dialect == Dialect.TANGLED) {
                Entry on = map.entries().get("on");
                if (on != null) {
                    throw fields.error(on.keyAt(), "on", "a tangled workflow runs when its 'when' says, which the knot"
                            + " reads; 'on' has no place here");
                }
                Entry named = map.entries().get("name");
                if (named != null) {
                    throw fields.error(named.keyAt(), "name", "a tangled workflow is named by its file ("
                            + dialect.defaultName(file) + "), which is what tangled shows; 'name' has no place here");
                }
            }
            fields.onlyKnown(map, "", dialect.fields());
            String name = dialect.defaultName(file);
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
                        image = image(value, path);
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
                    case "when", "engine", "clone" -> {} // the knot's (Dialect.TANGLED), read by the knot
                    default -> throw new IllegalStateException(entry.key());
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
        List<Workflow> expanded(Workflow workflow) throws WorkflowException {
            if (matrix == null) {
                return List.of(workflow);
            }
            List<Workflow> combinations = Expansion.expand(workflow, matrix);
            if (combinations.stream().map(Workflow::name).distinct().count() != combinations.size()) {
                throw fields.error(matrixAt, "matrix", "two combinations would have the same name");
            }
            return combinations;
        }

        WorkflowException error(Position at, String path, String problem) {
            return fields.error(at, path, problem);
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

        private String image(Node node, String path) throws WorkflowException {
            String image = fields.string(node, path, "an image reference");
            if (image.isBlank() || image.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
                throw fields.error(node.at(), path, "not an image reference: '" + image + "' (no spaces; such as alpine:3.20)");
            }
            return image;
        }
    }

    /** The file name without directory and extension: {@code .knotless/workflows/ci.yaml} gives {@code ci}. */
    static String defaultName(String file) {
        String base = file.substring(file.lastIndexOf('/') + 1);
        int dot = base.lastIndexOf('.');
        return dot > 0 ? base.substring(0, dot) : base;
    }
}
