package dev.knotless.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A workflow file is not valid. The message is one line, {@code FILE:LINE:COLUMN: field 'PATH':
 * PROBLEM}, or {@code FILE:LINE:COLUMN: PROBLEM} when no field is at fault (a YAML syntax error,
 * an empty file). Lines and columns count from 1; list indexes in {@code PATH} count from 0.
 *
 * <p>Checked, because every caller has to decide what a broken workflow means for it: the one-shot
 * command prints it and exits, the daemon reports it as an {@code error} check of its own.
 * Control characters of the file's text are escaped so the message stays on one line.
 *
 * <p>A dialect that reads on past a problem ({@link #all}) gives every problem of the file: the
 * message is the first, with how many more there are; {@link #problems()} lists them all.
 */
public final class WorkflowException extends Exception {

    private final String file;
    private final int line;
    private final int column;
    private final String field;
    private final String problem;
    private final List<WorkflowException> more;

    /**
     * @param field the field's path, such as {@code steps[1].timeout}; null or empty for none
     */
    public WorkflowException(String file, int line, int column, String field, String problem) {
        super(format(file, line, column, field, problem));
        this.file = Objects.requireNonNull(file, "file");
        this.line = line;
        this.column = column;
        this.field = field == null || field.isEmpty() ? null : field;
        this.problem = Objects.requireNonNull(problem, "problem");
        this.more = List.of();
    }

    private WorkflowException(WorkflowException first, List<WorkflowException> more) {
        super(first.getMessage() + " (and " + more.size() + " more problem" + (more.size() == 1 ? "" : "s") + " in the file)");
        this.file = first.file;
        this.line = first.line;
        this.column = first.column;
        this.field = first.field;
        this.problem = first.problem;
        this.more = List.copyOf(more);
    }

    /**
     * One exception for every problem of {@code found} (at least one), in the order found.
     *
     * @throws IllegalArgumentException when {@code found} is empty
     */
    public static WorkflowException all(List<WorkflowException> found) {
        if (found.isEmpty()) {
            throw new IllegalArgumentException("no problem to report");
        }
        List<WorkflowException> flat = new ArrayList<>();
        found.forEach(e -> flat.addAll(e.problems()));
        return flat.size() == 1 ? flat.getFirst() : new WorkflowException(flat.getFirst(), flat.subList(1, flat.size()));
    }

    /** Every problem, this one first: each with its own one-line message. */
    public List<WorkflowException> problems() {
        if (more.isEmpty()) {
            return List.of(this);
        }
        List<WorkflowException> all = new ArrayList<>();
        all.add(new WorkflowException(file, line, column, field, problem));
        all.addAll(more);
        return List.copyOf(all);
    }

    public String file() {
        return file;
    }

    /** 1-based. */
    public int line() {
        return line;
    }

    /** 1-based. */
    public int column() {
        return column;
    }

    /** The field's path, or null when the problem is not a field's. */
    public String field() {
        return field;
    }

    /** What is wrong, without the position. */
    public String problem() {
        return problem;
    }

    private static String format(String file, int line, int column, String field, String problem) {
        StringBuilder sb = new StringBuilder();
        sb.append(oneLine(file)).append(':').append(line).append(':').append(column).append(": ");
        if (field != null && !field.isEmpty()) {
            sb.append("field '").append(oneLine(field)).append("': ");
        }
        return sb.append(oneLine(problem)).toString();
    }

    /** Escapes control characters (a newline becomes {@code \n}). */
    static String oneLine(String text) {
        StringBuilder sb = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.toString();
    }
}
