package dev.knotless.plan;

import java.util.List;

/**
 * What {@link Dialect#parseAll} found: the valid workflows, sorted by file name, and one
 * error per invalid file, in the same order. A broken file does not hide the others: the caller
 * runs what is valid and reports each error.
 */
public record WorkflowSet(List<Workflow> workflows, List<WorkflowException> errors) {

    public WorkflowSet {
        workflows = List.copyOf(workflows);
        errors = List.copyOf(errors);
    }

    public boolean hasErrors() {
        return !errors.isEmpty();
    }

    /**
     * The runs {@code w} waits for, by the names their checks carry: each combination of each
     * workflow it needs, or, for a need whose file does not parse, that file's path (its run is an
     * {@code error} check named so).
     */
    public List<String> runsNeededBy(Workflow w) {
        List<String> names = new java.util.ArrayList<>();
        for (String need : w.needs()) {
            List<String> combinations = workflows.stream().filter(x -> x.group().equals(need)).map(Workflow::name).toList();
            if (!combinations.isEmpty()) {
                names.addAll(combinations);
            } else {
                errors.stream().filter(e -> Workflow.baseName(e.file()).equals(need)).findFirst()
                        .ifPresent(e -> names.add(e.file()));
            }
        }
        return List.copyOf(names);
    }

    /** The workflows of {@code wanted} and, transitively, those they need: what {@code exec --workflow} runs. */
    public List<Workflow> withNeeds(List<Workflow> wanted) {
        java.util.Set<String> groups = new java.util.LinkedHashSet<>();
        java.util.Deque<String> todo = new java.util.ArrayDeque<>();
        wanted.forEach(w -> todo.add(w.group()));
        while (!todo.isEmpty()) {
            String g = todo.poll();
            if (groups.add(g)) {
                workflows.stream().filter(x -> x.group().equals(g)).findFirst().ifPresent(x -> todo.addAll(x.needs()));
            }
        }
        java.util.Set<Workflow> picked = new java.util.LinkedHashSet<>(wanted);
        workflows.stream().filter(x -> groups.contains(x.group()) && wanted.stream().noneMatch(y -> y.group().equals(x.group())))
                .forEach(picked::add);
        return inOrder(List.copyOf(picked));
    }

    /** {@code some} ordered so that each comes after what it needs (file order otherwise). */
    public List<Workflow> inOrder(List<Workflow> some) {
        List<Workflow> ordered = new java.util.ArrayList<>();
        java.util.Set<String> placed = new java.util.HashSet<>();
        List<Workflow> left = new java.util.ArrayList<>(some);
        java.util.Set<String> present = new java.util.HashSet<>();
        some.forEach(w -> present.add(w.group()));
        while (!left.isEmpty()) {
            boolean moved = false;
            for (java.util.Iterator<Workflow> it = left.iterator(); it.hasNext(); ) {
                Workflow w = it.next();
                if (w.needs().stream().allMatch(n -> placed.contains(n) || !present.contains(n))) {
                    ordered.add(w);
                    it.remove();
                    moved = true;
                }
            }
            // groups are placed once all their combinations are
            for (Workflow w : ordered) {
                if (left.stream().noneMatch(x -> x.group().equals(w.group()))) {
                    placed.add(w.group());
                }
            }
            if (!moved) {
                ordered.addAll(left); // a cycle: refused by the parser, so never here
                break;
            }
        }
        return List.copyOf(ordered);
    }
}
