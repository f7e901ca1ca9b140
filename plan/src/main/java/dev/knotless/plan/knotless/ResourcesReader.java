package dev.knotless.plan.knotless;

import dev.knotless.executor.Resources;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.Kind;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads a workflow's {@code resources}: CPU and memory quantities as Kubernetes writes them.
 */
record ResourcesReader(Fields fields) {

    static final List<String> RESOURCE_FIELDS = List.of("cpu", "memory");

    private static final Pattern CPU = Pattern.compile("\\d{1,12}(?:\\.\\d{1,9})?|\\d{1,12}m");
    private static final Pattern MEMORY = Pattern.compile("\\d{1,15}(?:\\.\\d{1,9})?(?:[KMGT]i?|[kmg])?");

    Resources read(Node node, String path) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map such as {cpu: 2, memory: 4Gi}");
        fields.onlyKnown(map, path, RESOURCE_FIELDS);
        long milliCpu = 0;
        long memory = 0;
        for (Entry entry : map.entries().values()) {
            String fieldPath = path + "." + entry.key();
            Node value = entry.value();
            if (entry.key().equals("cpu")) {
                String text = quantity(value, fieldPath, "a CPU quantity such as 2, 0.5 or 500m");
                if (!CPU.matcher(text).matches()) {
                    throw fields.error(value.at(), fieldPath, "not a CPU quantity: '" + text + "' (use 2, 0.5 or 500m)");
                }
                milliCpu = Resources.parseMilliCpu(text);
                if (milliCpu < 1) {
                    throw fields.error(value.at(), fieldPath, "must be at least 1m, a thousandth of a core");
                }
            } else {
                String text = quantity(value, fieldPath, "a memory quantity such as 512Mi or 2Gi");
                if (!MEMORY.matcher(text).matches()) {
                    throw fields.error(value.at(), fieldPath,
                            "not a memory quantity: '" + text + "' (use 512Mi, 2Gi, 1G, 512m or bytes)");
                }
                memory = Resources.parseMemory(text);
                if (memory < 1) {
                    throw fields.error(value.at(), fieldPath, "must be more than 0 bytes");
                }
            }
        }
        return new Resources(milliCpu, memory);
    }

    private String quantity(Node node, String path, String expected) throws WorkflowException {
        if (node.kind() != Kind.STRING && node.kind() != Kind.NUMBER) {
            throw fields.error(node.at(), path, "expected " + expected + ", got " + node.kind().described());
        }
        return ((YamlTree.Scalar) node).text().strip();
    }
}
