package dev.knotless.plan.yaml;

import dev.knotless.plan.Workflow;
import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.plan.yaml.YamlTree.Position;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The checks only a commit's whole set of workflows can make: every {@code needs} names a workflow
 * of the set, and no workflow needs itself through others. A workflow that fails them is an error
 * of its file (file, line and the {@code needs[i]} field) and is left out, as a file that does not
 * parse is.
 */
final class RunGraph {

    private RunGraph() {}

    /** {@code workflows} less those the checks refuse, and {@code errors} with theirs, by file. */
    static WorkflowSet checked(List<Workflow> workflows, List<WorkflowException> errors, Map<String, FileRead> reads) {
        Map<String, List<Workflow>> groups = new LinkedHashMap<>();
        workflows.forEach(w -> groups.computeIfAbsent(w.group(), g -> new ArrayList<>()).add(w));
        Set<String> brokenNames = new HashSet<>();
        errors.forEach(e -> brokenNames.add(Workflow.baseName(e.file())));
        Map<String, WorkflowException> refused = new LinkedHashMap<>();
        for (Map.Entry<String, List<Workflow>> group : groups.entrySet()) {
            Workflow w = group.getValue().getFirst();
            FileRead read = reads.get(group.getKey());
            for (int i = 0; i < w.needs().size(); i++) {
                String need = w.needs().get(i);
                if (need.equals(group.getKey())) {
                    refused.put(group.getKey(), needError(read, i, "a workflow cannot need itself"));
                } else if (!groups.containsKey(need) && !brokenNames.contains(need)) {
                    refused.put(group.getKey(), needError(read, i, "no workflow named '" + need
                            + "' in this commit (there are " + String.join(", ", groups.keySet()) + ")"));
                }
                if (refused.containsKey(group.getKey())) {
                    break;
                }
            }
        }
        for (List<String> cycle : cycles(groups)) {
            String first = cycle.getFirst();
            if (refused.containsKey(first)) {
                continue;
            }
            for (String member : cycle) {
                Workflow w = groups.get(member).getFirst();
                String next = cycle.get((cycle.indexOf(member) + 1) % cycle.size());
                int i = w.needs().indexOf(next);
                refused.putIfAbsent(member, needError(reads.get(member), i,
                        "the needs make a cycle: " + String.join(" → ", cycle) + " → " + first));
            }
        }
        List<WorkflowException> allErrors = new ArrayList<>(errors);
        allErrors.addAll(refused.values());
        allErrors.sort(java.util.Comparator.comparing(WorkflowException::file));
        return new WorkflowSet(workflows.stream().filter(w -> !refused.containsKey(w.group())).toList(), allErrors);
    }

    /** An error of need {@code i} of the file {@code read} came from, at the line it was written. */
    private static WorkflowException needError(FileRead read, int i, String problem) {
        Position at = read.needsAt().get(i);
        return new WorkflowException(read.workflow().file(), at.line(), at.column(), "needs[" + i + "]", problem);
    }

    /** Each cycle of the needs among groups, once, starting at its first member in file order. */
    private static List<List<String>> cycles(Map<String, List<Workflow>> groups) {
        List<List<String>> cycles = new ArrayList<>();
        Set<String> done = new HashSet<>();
        for (String start : groups.keySet()) {
            walk(start, groups, new LinkedHashSet<>(), done, cycles);
        }
        return cycles;
    }

    private static void walk(String at, Map<String, List<Workflow>> groups, LinkedHashSet<String> path, Set<String> done,
            List<List<String>> cycles) {
        if (done.contains(at) || !groups.containsKey(at)) {
            return;
        }
        if (path.contains(at)) {
            List<String> onPath = new ArrayList<>(path);
            cycles.add(List.copyOf(onPath.subList(onPath.indexOf(at), onPath.size())));
            return;
        }
        path.add(at);
        for (String need : groups.get(at).getFirst().needs()) {
            walk(need, groups, path, done, cycles);
        }
        path.remove(at);
        done.add(at);
    }

}
