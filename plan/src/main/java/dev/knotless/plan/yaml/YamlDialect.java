package dev.knotless.plan.yaml;

import dev.knotless.plan.CommitFiles;
import dev.knotless.plan.Dialect;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.plan.yaml.YamlTree.Node;
import java.util.List;
import java.util.Map;

/**
 * A dialect written in YAML, as every one we read is: it reads one file's tree, and the reading
 * of text, its bounds and the checks over a commit's whole set are {@link WorkflowFiles}' and the
 * same for all of them. A dialect's package implements {@link #read} and names itself.
 */
public interface YamlDialect extends Dialect {

    /**
     * Reads one file's document against this dialect's schema: what it makes, one {@link
     * FileRead} for each workflow of the file (ours has one; a GitHub Actions file one per job).
     *
     * @throws WorkflowException naming the file, line, column and field of the first problem, and
     *     of every other the dialect finds ({@link WorkflowException#problems()})
     */
    List<FileRead> read(String file, Node root) throws WorkflowException;

    /** As {@link #read(String, Node)}, with the other files of its commit at hand; ignored unless the dialect names any. */
    default List<FileRead> read(String file, Node root, CommitFiles commit) throws WorkflowException {
        return read(file, root);
    }

    @Override
    default List<Workflow> parseExpanded(String file, String text) throws WorkflowException {
        return WorkflowFiles.readOne(file, text, this);
    }

    @Override
    default WorkflowSet parseAll(Map<String, String> files, Map<String, String> refused) {
        return parseAll(files, refused, CommitFiles.NONE);
    }

    @Override
    default WorkflowSet parseAll(Map<String, String> files, Map<String, String> refused, CommitFiles commit) {
        return WorkflowFiles.readAll(files, refused, WorkflowFiles.MAX_NODES_IN_ALL, this, commit);
    }
}
