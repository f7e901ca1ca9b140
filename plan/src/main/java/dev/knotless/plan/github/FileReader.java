package dev.knotless.plan.github;

import dev.knotless.plan.Computed;
import dev.knotless.plan.CommitFiles;
import dev.knotless.plan.Triggers;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.FileRead;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Reads one GitHub Actions file: its name, triggers, environment and defaults, then each job
 * (JobReader). Every problem found is kept and the file refused with all of them at the end.
 */
final class FileReader {

    /** What a run name may read, as on GitHub. */
    static final java.util.Set<String> RUN_NAME_READS = java.util.Set.of("github", "inputs", "vars");
    static final Keys FILE = new Keys(List.of("name", "run-name", "on", "permissions", "env", "defaults", "jobs",
            "concurrency"), Map.of());
    static final int MAX_JOBS = 256;
    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");

    private final String file;
    private final Fields fields;
    private final Problems problems = new Problems();

    private final CommitFiles commit;

    FileReader(String file, CommitFiles commit) {
        this.file = file;
        this.fields = new Fields(file);
        this.commit = commit;
    }

    List<FileRead> read(Node root) throws WorkflowException {
        MapNode map = fields.map(root, "", "a map of workflow fields (name, on, jobs, ...)");
        FILE.check(map, "", fields, problems);
        String name = file;
        // Triggers first: the workflow's env may read the inputs they declare.
        Entry onEntry = map.entries().get("on");
        Triggers on = onEntry == null ? Triggers.of() : new TriggerReader(fields, problems).read(onEntry.value(), "on");
        ReadTime values = ReadTime.fileLevel(fields, problems, map.entries().get("name") instanceof Entry given
                && given.value() instanceof Scalar s && !s.text().isBlank() ? s.text() : file, on.inputs());
        YamlTree.Position nameAt = YamlTree.Position.START;
        Variables env = Variables.NONE;
        RunDefaults defaults = RunDefaults.NONE;
        MapNode jobs = null;
        Computed runName = null;
        for (Entry entry : map.entries().values()) {
            String path = entry.key();
            Node value = entry.value();
            switch (entry.key()) {
                case "name" -> {
                    // GitHub shows a workflow's name as written: it is not an expression.
                    String given = problems.read(() -> fields.label(value, path)).orElse(null);
                    if (given != null) {
                        name = given;
                        nameAt = value.at();
                    }
                }
                case "run-name" -> runName = problems.read(() -> runName(value, path, values)).orElse(null);
                case "on" -> { } // read first, above
                case "permissions" -> problems.check(() -> Permissions.check(value, path, fields));
                case "concurrency" -> problems.check(() -> Concurrency.check(value, path, fields, problems));
                case "env" -> env = problems.read(() -> values.env(value, path)).orElse(env);
                case "defaults" -> {
                    RunDefaults base = defaults;
                    defaults = problems.read(() -> base.over(value, path, fields, problems, values)).orElse(base);
                }
                case "jobs" -> jobs = problems.read(() -> fields.map(value, path, "a map of job ids to jobs")).orElse(null);
                default -> { }
            }
        }
        if (!map.entries().containsKey("on")) {
            problems.add(fields.error(map.at(), "on", "required: the events that run the workflow, such as [push, pull_request]"));
        }
        if (!map.entries().containsKey("jobs")) {
            problems.add(fields.error(map.at(), "jobs", "required: a workflow needs at least one job"));
        }
        List<FileRead> reads = new ArrayList<>();
        if (jobs != null) {
            reads.addAll(jobs(jobs, new JobReader.Around(name, on, env, defaults, groups(name, jobs), runName), nameAt));
        }
        problems.throwIfAny();
        return reads;
    }

    /**
     * {@code run-name}: text, or a template over {@code github}, {@code inputs} and {@code vars}
     * only (GitHub's rule), worked out as each of the workflow's runs starts.
     */
    private Computed runName(Node value, String path, ReadTime values) throws WorkflowException {
        Computed name = values.later(value, path, "a run name", ReadTime.Use.SHOWN);
        if (name instanceof Computed.Evaluated e) {
            for (String context : e.expression().contexts()) {
                if (!RUN_NAME_READS.contains(context)) {
                    throw fields.error(value.at(), path, "reads '" + context + "', which a run name cannot read (GitHub"
                            + " works it out before any job: 'github', 'inputs' and 'vars' only)");
                }
            }
            if (ContextRules.hashesFiles(e.expression())) {
                throw fields.error(value.at(), path, "calls hashFiles(), which reads a run's files, and a run name is"
                        + " worked out before there are any");
            }
        }
        return name;
    }

    /** What {@code needs} calls each job: the workflow's name and the job's, or its id when its name is an expression. */
    private Map<String, String> groups(String workflowName, MapNode jobs) {
        Map<String, String> groups = new LinkedHashMap<>();
        for (Entry job : jobs.entries().values()) {
            String label = job.key();
            if (job.value() instanceof MapNode map && map.entries().get("name") instanceof Entry given
                    && given.value() instanceof Scalar s && !s.text().contains("${{") && !s.text().isBlank()) {
                label = s.text();
            }
            groups.put(job.key(), workflowName + " / " + label);
        }
        return groups;
    }

    private List<FileRead> jobs(MapNode jobs, JobReader.Around around, YamlTree.Position nameAt) {
        List<FileRead> reads = new ArrayList<>();
        if (jobs.entries().isEmpty()) {
            problems.add(fields.error(jobs.at(), "jobs", "is empty: a workflow needs at least one job"));
            return reads;
        }
        if (jobs.entries().size() > MAX_JOBS) {
            problems.add(fields.error(jobs.at(), "jobs", jobs.entries().size() + " jobs; at most " + MAX_JOBS));
            return reads;
        }
        JobReader reader = new JobReader(fields, problems, commit);
        for (Entry entry : jobs.entries().values()) {
            if (!JOB_ID.matcher(entry.key()).matches()) {
                problems.add(fields.error(entry.keyAt(), YamlTree.child("jobs", entry.key()), "'" + entry.key()
                        + "' is not a valid job id (letters, digits, '_' and '-', starting with a letter or '_')"));
                continue;
            }
            JobReader.Job job = problems.read(() -> reader.read(entry, around)).orElse(null);
            if (job == null) {
                continue;
            }
            Workflow first = job.runs().getFirst();
            Workflow asWritten = first.cell() == null ? first : first.named(job.group());
            reads.add(new FileRead(asWritten, job.runs(), job.nameGiven() ? job.nameAt() : nameAt, true, job.needsAt()));
        }
        return reads;
    }
}
