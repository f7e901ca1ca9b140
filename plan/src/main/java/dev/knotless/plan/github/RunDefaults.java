package dev.knotless.plan.github;

import dev.knotless.plan.Shell;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Position;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * {@code defaults.run} of a workflow or a job: the shell and working directory of its steps that
 * name none (a job's over the workflow's).
 *
 * @param workingDirectory relative to the workspace; null for the workspace itself
 */
record RunDefaults(Shell shell, @Nullable String workingDirectory) {

    static final RunDefaults NONE = new RunDefaults(Shells.DEFAULT, null);
    static final Keys DEFAULTS = new Keys(List.of("run"), Map.of());
    static final Keys RUN = new Keys(List.of("shell", "working-directory"), Map.of());

    /** These defaults with {@code node}'s ({@code {run: {shell, working-directory}}}) over them. */
    RunDefaults over(Node node, String path, Fields fields, Problems problems, ReadTime values) throws WorkflowException {
        MapNode map = fields.map(node, path, "a map such as {run: {shell: bash}}");
        DEFAULTS.check(map, path, fields, problems);
        Entry run = map.entries().get("run");
        if (run == null) {
            return this;
        }
        String runPath = path + ".run";
        MapNode runMap = fields.map(run.value(), runPath, "a map such as {shell: bash, working-directory: app}");
        RUN.check(runMap, runPath, fields, problems);
        Shell newShell = shell;
        String newDirectory = workingDirectory;
        for (Entry entry : runMap.entries().values()) {
            String fieldPath = YamlTree.child(runPath, entry.key());
            switch (entry.key()) {
                case "shell" -> newShell = Shells.of(values.text(entry.value(), fieldPath, "a shell"), entry.value().at(),
                        fieldPath, fields);
                case "working-directory" -> newDirectory = directory(values.text(entry.value(), fieldPath, "a directory"),
                        entry.value().at(), fieldPath, fields);
                default -> { }
            }
        }
        return new RunDefaults(newShell, newDirectory);
    }

    /** A directory relative to the workspace, in its plain form; null for the workspace itself. */
    static @Nullable String directory(String written, Position at, String path, Fields fields) throws WorkflowException {
        String plain = written.strip();
        String workspace = JobReader.WORKSPACE.directory();
        if (plain.equals(workspace) || plain.startsWith(workspace + "/")) {
            plain = plain.substring(workspace.length()); // ${{ github.workspace }}/sub, as GitHub's workflows write it
            plain = plain.startsWith("/") ? plain.substring(1) : plain;
        }
        if (plain.startsWith("/")) {
            throw fields.error(at, path, "'" + written + "': a directory outside the workspace is not carried out yet;"
                    + " give one relative to it");
        }
        List<String> parts = java.util.Arrays.stream(plain.split("/")).filter(p -> !p.isEmpty() && !p.equals(".")).toList();
        if (parts.contains("..")) {
            throw fields.error(at, path, "'" + written + "': a directory outside the workspace is not carried out yet;"
                    + " give one inside it, without '..'");
        }
        return parts.isEmpty() ? null : String.join("/", parts);
    }
}
