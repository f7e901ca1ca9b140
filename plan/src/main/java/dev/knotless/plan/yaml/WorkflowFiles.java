package dev.knotless.plan.yaml;

import dev.knotless.plan.CommitFiles;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.plan.yaml.YamlTree.Position;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Reads workflow files of a YAML dialect, one or a commit's worth, strictly: an unknown field, a
 * value of the wrong type, a bad value, a duplicate key or a YAML syntax error is a {@link
 * WorkflowException} naming the file, line, column and field. What a file means is its dialect's
 * ({@link YamlDialect#read}); what is here is the same for every dialect: the YAML itself, the
 * bounds on what a commit's files may build, and the checks only the whole set can make. Stateless
 * and thread-safe.
 */
public final class WorkflowFiles {

    /** Nodes all the workflow files of one commit may build together (each file also has its own cap). */
    public static final long MAX_NODES_IN_ALL = 1_000_000;

    private WorkflowFiles() {}

    /** Whether a file of the workflow directory is a workflow: its name ends in {@code .yaml} or {@code .yml}. */
    static boolean isWorkflowFile(String path) {
        return path.endsWith(".yaml") || path.endsWith(".yml");
    }

    /** One file's runs, read as {@code dialect} says. */
    static List<Workflow> readOne(String file, String text, YamlDialect dialect) throws WorkflowException {
        return dialect.read(file, YamlTree.read(file, text)).stream().flatMap(read -> read.runs().stream()).toList();
    }

    /**
     * Every workflow file of {@code files} (path to text); other names, such as a README, are left
     * out. Files are read in path order; two may not give their workflows the same name: the later
     * file is the one in error. At most {@code maxNodesInAll} YAML nodes are built over all of them.
     *
     * @param refused files that were not read, path to why: each is an error at its first line
     */
    public static WorkflowSet readAll(Map<String, String> files, Map<String, String> refused, long maxNodesInAll,
            YamlDialect dialect) {
        return readAll(files, refused, maxNodesInAll, dialect, CommitFiles.NONE);
    }

    /** As {@link #readAll(Map, Map, long, YamlDialect)}, with the other files of their commit at hand. */
    public static WorkflowSet readAll(Map<String, String> files, Map<String, String> refused, long maxNodesInAll,
            YamlDialect dialect, CommitFiles commit) {
        List<Workflow> workflows = new ArrayList<>();
        List<WorkflowException> errors = new ArrayList<>();
        Map<String, String> fileByName = new HashMap<>();
        Map<String, FileRead> reads = new HashMap<>();
        long left = maxNodesInAll;
        Map<String, String> all = new TreeMap<>(files);
        refused.keySet().forEach(file -> all.putIfAbsent(file, ""));
        for (Map.Entry<String, String> entry : all.entrySet()) {
            String file = entry.getKey();
            if (!isWorkflowFile(file)) {
                continue;
            }
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
                List<FileRead> fileReads = dialect.read(file, read.root(), commit);
                Map<String, String> names = new HashMap<>(fileByName);
                for (FileRead fileRead : fileReads) {
                    Workflow workflow = fileRead.workflow();
                    for (String name : Stream.concat(Stream.of(workflow.name()), fileRead.runs().stream().map(Workflow::name))
                            .distinct().toList()) {
                        String earlier = names.get(name);
                        if (earlier != null) {
                            Position at = fileRead.nameAt();
                            throw new WorkflowException(file, at.line(), at.column(), "name",
                                    "workflow name '" + name + "' is already used by " + earlier
                                            + (fileRead.nameGiven() ? "" : " (set 'name' to tell them apart)"));
                        }
                    }
                    fileRead.runs().forEach(c -> names.put(c.name(), file));
                    names.put(workflow.name(), file);
                }
                // A file counts whole or not at all: a later clash leaves none of its workflows in.
                fileByName.putAll(names);
                for (FileRead fileRead : fileReads) {
                    workflows.addAll(fileRead.runs());
                    reads.put(fileRead.workflow().name(), fileRead);
                }
            } catch (WorkflowException e) {
                errors.add(e);
            }
        }
        return RunGraph.checked(workflows, errors, reads);
    }
}
