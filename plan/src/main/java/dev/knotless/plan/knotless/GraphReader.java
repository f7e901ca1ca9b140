package dev.knotless.plan.knotless;

import dev.knotless.plan.Matrix;
import dev.knotless.plan.Service;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.Kind;
import dev.knotless.plan.yaml.YamlTree.ListNode;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Position;
import dev.knotless.plan.yaml.YamlTree;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads what ties a workflow to others and to containers beside it: {@code services}, {@code
 * matrix}, {@code needs} and {@code artifacts}.
 */
record GraphReader(Fields fields) {

    static final List<String> SERVICE_FIELDS = List.of("image", "variables", "command", "ports", "wait");
    static final List<String> MATRIX_CONTROLS = List.of("exclude", "max-parallel", "fail-fast");
    /** More services is a run that should be a cluster. */
    static final int MAX_SERVICES = 8;
    static final int MAX_NEEDS = 32;
    static final int MAX_ARTIFACTS = 32;
    static final int MAX_AXES = 8;
    /** Host names: what a step types, and what DNS, /etc/hosts and hostAliases all take. */
    private static final Pattern HOST = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final Pattern ARTIFACT = Pattern.compile("[A-Za-z0-9._*?-][A-Za-z0-9._/*?-]*");
    private static final Pattern KEY = Pattern.compile("[A-Za-z][A-Za-z0-9_-]{0,31}");

    List<Service> services(Node node, String path) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map of service names to {image, ports, ...}");
        if (map.entries().size() > MAX_SERVICES) {
            throw fields.error(map.at(), path, map.entries().size() + " services; at most " + MAX_SERVICES);
        }
        List<Service> services = new ArrayList<>();
        Map<Integer, String> portOwner = new LinkedHashMap<>();
        for (Entry entry : map.entries().values()) {
            String name = entry.key();
            String servicePath = YamlTree.child(path, name);
            if (!HOST.matcher(name).matches()) {
                throw fields.error(entry.keyAt(), servicePath, "'" + name + "' is not a host name: lower-case letters,"
                        + " digits and '-', 1-63 characters, not starting or ending with '-'");
            }
            MapNode fieldsMap = fields.map(entry.value(), servicePath, "a map such as {image: postgres:16, ports: [5432]}");
            fields.onlyKnown(fieldsMap, servicePath, SERVICE_FIELDS);
            String image = null;
            Map<String, String> variables = Map.of();
            List<String> command = List.of();
            List<Integer> ports = List.of();
            Duration wait = Service.DEFAULT_WAIT;
            for (Entry f : fieldsMap.entries().values()) {
                String fieldPath = servicePath + "." + f.key();
                switch (f.key()) {
                    case "image" -> image = image(f.value(), fieldPath, "postgres:16");
                    case "variables" -> variables = fields.variables(f.value(), fieldPath);
                    case "command" -> command = command(f.value(), fieldPath);
                    case "ports" -> {
                        ports = ports(f.value(), fieldPath);
                        for (int i = 0; i < ports.size(); i++) {
                            String other = portOwner.putIfAbsent(ports.get(i), name);
                            if (other != null) {
                                throw fields.error(((ListNode) f.value()).items().get(i).at(), fieldPath + "[" + i + "]",
                                        "port " + ports.get(i) + " is also service '" + other + "''s: on every executor the"
                                                + " services share the run's network namespace, where two cannot listen on one port");
                            }
                        }
                    }
                    case "wait" -> wait = fields.duration(f.value(), fieldPath);
                    default -> throw new IllegalStateException(f.key());
                }
            }
            if (image == null) {
                throw fields.error(fieldsMap.at(), servicePath + ".image", "required: the service's image");
            }
            services.add(new Service(name, image, variables, command, ports, wait));
        }
        return services;
    }

    /** An image reference, the workflow's or a service's; {@code example} is one such, for the error. */
    String image(Node node, String path, String example) throws WorkflowException {
        String image = fields.string(node, path, "an image reference");
        if (image.isBlank() || image.chars().anyMatch(c -> Character.isWhitespace(c) || Character.isISOControl(c))) {
            throw fields.error(node.at(), path, "not an image reference: '" + image + "' (no spaces; such as " + example + ")");
        }
        return image;
    }

    private List<String> command(Node node, String path) throws WorkflowException {
        if (!(node instanceof ListNode list) || list.items().isEmpty()) {
            throw fields.error(node.at(), path, "expected a non-empty list of arguments such as [postgres, -c, fsync=off]");
        }
        List<String> args = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            String arg = fields.string(list.items().get(i), path + "[" + i + "]", "an argument");
            if (arg.indexOf('\0') >= 0) {
                throw fields.error(list.items().get(i).at(), path + "[" + i + "]", "contains a NUL character");
            }
            args.add(arg);
        }
        return args;
    }

    private List<Integer> ports(Node node, String path) throws WorkflowException {
        if (!(node instanceof ListNode list)) {
            throw fields.error(node.at(), path, "expected a list of TCP ports such as [5432]");
        }
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < list.items().size(); i++) {
            Node item = list.items().get(i);
            int port;
            try {
                port = item.kind() == Kind.NUMBER ? Integer.parseInt(((YamlTree.Scalar) item).text()) : -1;
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw fields.error(item.at(), path + "[" + i + "]", "expected a TCP port from 1 to 65535");
            }
            if (ports.contains(port)) {
                throw fields.error(item.at(), path + "[" + i + "]", "port " + port + " is listed twice");
            }
            ports.add(port);
        }
        return ports;
    }

    /** {@code {KEY: [values], exclude: [{KEY: value}], max-parallel: N, fail-fast: bool}}. */
    Matrix matrix(Node node, String path) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map of keys to lists of values, such as {jdk: [\"17\", \"21\"]}");
        Map<String, List<String>> axes = new LinkedHashMap<>();
        List<Map<String, String>> exclude = new ArrayList<>();
        int maxParallel = 0;
        boolean failFast = true;
        Node excludeNode = null;
        for (Entry entry : map.entries().values()) {
            String keyPath = YamlTree.child(path, entry.key());
            switch (entry.key()) {
                case "exclude" -> excludeNode = entry.value();
                case "max-parallel" -> {
                    Node v = entry.value();
                    try {
                        maxParallel = v.kind() == Kind.NUMBER ? Integer.parseInt(((YamlTree.Scalar) v).text()) : -1;
                    } catch (NumberFormatException e) {
                        maxParallel = -1;
                    }
                    if (maxParallel < 1) {
                        throw fields.error(v.at(), keyPath, "expected a whole number of at least 1");
                    }
                }
                case "fail-fast" -> {
                    if (entry.value().kind() != Kind.BOOLEAN) {
                        throw fields.error(entry.value().at(), keyPath, "expected true or false, got " + entry.value().kind().described());
                    }
                    failFast = Boolean.parseBoolean(((YamlTree.Scalar) entry.value()).text().toLowerCase(java.util.Locale.ROOT));
                }
                default -> {
                    if (!KEY.matcher(entry.key()).matches()) {
                        throw fields.error(entry.keyAt(), keyPath, "'" + entry.key() + "' is not a matrix key: a letter, then"
                                + " letters, digits, '_' or '-', at most 32");
                    }
                    List<String> values = fields.distinctStrings(entry.value(), keyPath, "value");
                    if (values.isEmpty()) {
                        throw fields.error(entry.value().at(), keyPath, "is empty; a key needs at least one value");
                    }
                    axes.put(entry.key(), values);
                }
            }
        }
        if (axes.isEmpty()) {
            throw fields.error(map.at(), path, "has no keys; give at least one, such as {jdk: [\"17\", \"21\"]}");
        }
        if (axes.size() > MAX_AXES) {
            throw fields.error(map.at(), path, axes.size() + " keys; at most " + MAX_AXES);
        }
        if (excludeNode != null) {
            String excludePath = path + ".exclude";
            if (!(excludeNode instanceof ListNode list)) {
                throw fields.error(excludeNode.at(), excludePath, "expected a list of partial combinations such as [{jdk: \"17\"}]");
            }
            for (int i = 0; i < list.items().size(); i++) {
                String itemPath = excludePath + "[" + i + "]";
                MapNode e = fields.map(list.items().get(i), itemPath, "a map of keys to values");
                Map<String, String> partial = new LinkedHashMap<>();
                for (Entry kv : e.entries().values()) {
                    String kvPath = YamlTree.child(itemPath, kv.key());
                    if (!axes.containsKey(kv.key())) {
                        throw fields.error(kv.keyAt(), kvPath, "'" + kv.key() + "' is not a key of the matrix ("
                                + String.join(", ", axes.keySet()) + ")");
                    }
                    String value = fields.string(kv.value(), kvPath, "a value");
                    if (!axes.get(kv.key()).contains(value)) {
                        throw fields.error(kv.value().at(), kvPath, "'" + value + "' is not one of " + kv.key() + "'s values ("
                                + String.join(", ", axes.get(kv.key())) + ")");
                    }
                    partial.put(kv.key(), value);
                }
                if (partial.isEmpty()) {
                    throw fields.error(e.at(), itemPath, "is empty; it would leave out every combination");
                }
                exclude.add(partial);
            }
        }
        Matrix matrix = new Matrix(axes, exclude, maxParallel, failFast);
        if (matrix.product() > 100_000 || matrix.combinations().size() > Matrix.MAX_COMBINATIONS) {
            throw fields.error(map.at(), path, "makes " + (matrix.product() > 100_000 ? "over 100000"
                    : matrix.combinations().size()) + " combinations; at most " + Matrix.MAX_COMBINATIONS);
        }
        if (matrix.combinations().isEmpty()) {
            throw fields.error(map.at(), path, "'exclude' leaves out every combination");
        }
        return matrix;
    }

    /** Workflow names; the positions go to {@code at}, for the errors only the whole set can find. */
    List<String> needs(Node node, String path, List<Position> at) throws WorkflowException {
        List<String> needs = fields.distinctStrings(node, path, "workflow name");
        if (needs.size() > MAX_NEEDS) {
            throw fields.error(node.at(), path, needs.size() + " needs; at most " + MAX_NEEDS);
        }
        for (Node item : ((ListNode) node).items()) {
            at.add(item.at());
        }
        return needs;
    }

    /** Paths and globs relative to /work, without '..'. */
    List<String> artifacts(Node node, String path) throws WorkflowException {
        List<String> patterns = fields.distinctStrings(node, path, "artifact path");
        if (patterns.isEmpty()) {
            throw fields.error(node.at(), path, "is empty; leave 'artifacts' out to save none");
        }
        if (patterns.size() > MAX_ARTIFACTS) {
            throw fields.error(node.at(), path, patterns.size() + " artifact paths; at most " + MAX_ARTIFACTS);
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < patterns.size(); i++) {
            String p = patterns.get(i);
            if (p.startsWith("/") || java.util.Arrays.asList(p.split("/")).contains("..") || !seen.add(p)) {
                throw fields.error(((ListNode) node).items().get(i).at(), path + "[" + i + "]",
                        "'" + p + "' must be a path or pattern relative to /work, without '..'");
            }
            if (!ARTIFACT.matcher(p).matches() || p.contains("**")) {
                throw fields.error(((ListNode) node).items().get(i).at(), path + "[" + i + "]", "'" + p
                        + "': artifact paths hold letters, digits, '.', '_', '-', '/' and the wildcards '*' and '?'"
                        + " (within one directory; name a directory to save it whole)");
            }
        }
        return patterns;
    }
}
