package dev.knotless.plan.tangled;

import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.knotless.Schema;
import dev.knotless.plan.knotless.WorkflowReader;
import dev.knotless.plan.yaml.FileRead;
import dev.knotless.plan.yaml.YamlDialect;
import dev.knotless.plan.yaml.YamlTree.Node;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tangled's: a workflow of a tangled pipeline ({@code .tangled/workflows/*.yml}, which the knot
 * reads and sends) with {@code engine: knotless}, which is our schema with the knot's own keys
 * beside it. {@code when} chose the trigger before the runner heard of it, so {@code on} has no
 * place; {@code engine} and {@code clone} are the knot's too. Its name is its file name, since that
 * is what tangled shows statuses and logs under, so {@code name} is refused rather than silently
 * meaning something tangled cannot show.
 */
public record TangledDialect() implements YamlDialect {

    /** The knot's keys: read by the knot, accepted and left alone here. */
    static final List<String> KNOTS_KEYS = List.of("when", "engine", "clone");

    @Override
    public String name() {
        return "tangled";
    }

    @Override
    public String directory() {
        return ".tangled/workflows";
    }

    @Override
    public List<FileRead> read(String file, Node root) throws WorkflowException {
        return List.of(new WorkflowReader(file, schema(file)).read(root));
    }

    /** Ours, named by the file's name as tangled shows it, without {@code on} and {@code name}. */
    static Schema schema(String file) {
        String name = file.substring(file.lastIndexOf('/') + 1);
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("on", "a tangled workflow runs when its 'when' says, which the knot reads; 'on' has no place here");
        refused.put("name", "a tangled workflow is named by its file (" + name
                + "), which is what tangled shows; 'name' has no place here");
        return new Schema(name, refused, KNOTS_KEYS);
    }
}
