package dev.knotless.plan;

import java.util.List;
import java.util.Map;

/**
 * A front-end: one way of writing workflows, read into the plan ({@link Workflow}s). Everything
 * that carries a plan out (runs, the daemon, the spindle, the CLI) sees only what a front-end
 * produced, never which front-end it was: it picks one by name from the list of dialects
 * ({@code dev.knotless.plan.dialects.Dialects}) and keeps the dialect with a queued run only to
 * read the same text the same way again.
 *
 * <p>Implementations are stateless and thread-safe, and equal when they are the same dialect.
 */
public interface Dialect {

    /** As a forge's event names it and a queued run keeps it: never renamed, since the queue stores it. */
    String name();

    /** Where a repository keeps this dialect's workflow files, such as {@code .knotless/workflows}. */
    String directory();

    /**
     * Every directory this dialect's files may be in, in the order they are looked for: the first
     * a commit has is read ({@code Dialects.forDirectories}). One for most dialects.
     */
    default List<String> directories() {
        return List.of(directory());
    }

    /**
     * Reads one file into its runs: one workflow, or one per combination of its matrix.
     *
     * @param file the path shown in errors and kept in {@link Workflow#file()}
     * @throws WorkflowException for the first problem found, in file order
     */
    List<Workflow> parseExpanded(String file, String text) throws WorkflowException;

    /**
     * Reads a commit's workflow files of this dialect together (path to text; other names, such as
     * a README, are left out): what only the whole set can check (two workflows of one name, a need
     * of no workflow, a cycle) is an error of the file at fault, and a broken file hides no other.
     *
     * @param refused files that were not read, path to why (such as a file over the mirror's size
     *     cap): each is an error of its own at its first line
     */
    WorkflowSet parseAll(Map<String, String> files, Map<String, String> refused);

    /** As {@link #parseAll(Map, Map)} with every file read. */
    /**
     * As {@link #parseAll(Map, Map)}, with the other files of their commit at hand, for what a
     * workflow names beside its file (a local action); a dialect that names none ignores them.
     */
    default WorkflowSet parseAll(Map<String, String> files, Map<String, String> refused, CommitFiles commit) {
        return parseAll(files, refused);
    }

    default WorkflowSet parseAll(Map<String, String> files) {
        return parseAll(files, Map.of());
    }

    /**
     * Reads one file: its workflow, or the first combination of its matrix.
     *
     * @throws WorkflowException for the first problem found, in file order
     */
    default Workflow parse(String file, String text) throws WorkflowException {
        return parseExpanded(file, text).getFirst();
    }
}
