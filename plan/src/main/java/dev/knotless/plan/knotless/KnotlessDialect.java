package dev.knotless.plan.knotless;

import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.plan.yaml.FileRead;
import dev.knotless.plan.yaml.WorkflowFiles;
import dev.knotless.plan.yaml.YamlDialect;
import dev.knotless.plan.yaml.YamlTree.Node;
import java.util.List;
import java.util.Map;

/**
 * Ours: {@code .knotless/workflows/*.yaml}, written as {@code docs/reference/workflow.md} says. A
 * repository's own workflow files are read in it.
 */
public record KnotlessDialect() implements YamlDialect {

    @Override
    public String name() {
        return "knotless";
    }

    @Override
    public String directory() {
        return ".knotless/workflows";
    }

    @Override
    public List<FileRead> read(String file, Node root) throws WorkflowException {
        return List.of(new WorkflowReader(file, Schema.ours(file)).read(root));
    }

    /** As {@link #parseAll(Map)}, with at most {@code maxNodesInAll} nodes built over all the files. */
    WorkflowSet parseAll(Map<String, String> files, long maxNodesInAll) {
        return WorkflowFiles.readAll(files, Map.of(), maxNodesInAll, this);
    }
}
