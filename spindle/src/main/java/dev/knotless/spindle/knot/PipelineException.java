package dev.knotless.spindle.knot;

/** A pipeline event that is refused; the message is one line saying why. */
public final class PipelineException extends Exception {

    private static final long serialVersionUID = 1L;

    public PipelineException(String reason) {
        super(reason);
    }
}
