package dev.knotless.plan;

import java.util.Objects;

/**
 * A workflow file is not valid. The message is one line, {@code FILE:LINE:COLUMN: field 'PATH':
 * PROBLEM}, or {@code FILE:LINE:COLUMN: PROBLEM} when no field is at fault (a YAML syntax error,
 * an empty file). Lines and columns count from 1; list indexes in {@code PATH} count from 0.
 *
 * <p>Checked, because every caller has to decide what a broken workflow means for it: the one-shot
 * command prints it and exits, the daemon reports it as an {@code error} check of its own.
 * Control characters of the file's text are escaped so the message stays on one line.
 */
public final class WorkflowException extends Exception {

    private final String file;
    private final int line;
    private final int column;
    private final String field;
    private final String problem;

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
