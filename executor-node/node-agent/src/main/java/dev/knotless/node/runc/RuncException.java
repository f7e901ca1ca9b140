package dev.knotless.node.runc;

/** A runc operation failed; the message is one line naming the container and runc's own error. */
public final class RuncException extends Exception {
    public RuncException(String message) {
        super(message);
    }
}
