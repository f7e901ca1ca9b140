package dev.knotless.plan.expression;

import java.util.Objects;

/**
 * An expression that cannot be parsed, or whose evaluation fails (a bad {@code format} string,
 * text {@code fromJSON} cannot read, the memory an evaluation may use). The message is one line.
 *
 * <p>Checked, as the module's {@code WorkflowException} is: a front-end has to turn a parse error
 * into an error at the file's line, and whoever evaluates has to decide what a failed evaluation
 * does to the step.
 */
public final class ExpressionException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String problem;
    private final int offset;

    /**
     * @param problem what is wrong, one line, without the position
     * @param offset 0-based index of where it is in the text that was parsed (a template's or a
     *     condition's whole text, not only the expression), or -1 when there is no place to name
     */
    public ExpressionException(String problem, int offset) {
        super(format(problem, offset));
        this.problem = Objects.requireNonNull(problem, "problem");
        this.offset = Math.max(-1, offset);
    }

    /** What is wrong, without the position. */
    public String problem() {
        return problem;
    }

    /** 0-based index into the parsed text, or -1. */
    public int offset() {
        return offset;
    }

    /** 1-based: the offset as GitHub's "position", the column for a one-line text; 0 when none. */
    public int column() {
        return offset + 1;
    }

    ExpressionException at(int newOffset) {
        return new ExpressionException(problem, newOffset);
    }

    private static String format(String problem, int offset) {
        return offset < 0 ? problem : "column " + (offset + 1) + ": " + problem;
    }
}
