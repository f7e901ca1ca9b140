package dev.knotless.forge.listen;

/**
 * A server that cannot start, said in one line: the daemon's HTTP API and the spindle both start
 * Javalin, whose exception wraps the one that tells why (the address taken, or not this
 * machine's) a layer or two down.
 */
public final class ListenFailure {

    private ListenFailure() {}

    /**
     * {@code saying + ": " +} the innermost cause of {@code e} (its message on one line, or its
     * class's name when it has none), with {@code e} as the cause.
     */
    public static IllegalStateException of(String saying, RuntimeException e) {
        Throwable cause = e;
        while (cause.getCause() != null) {
            cause = cause.getCause();
        }
        String message = cause.getMessage();
        return new IllegalStateException(saying + ": "
                + (message == null ? cause.getClass().getSimpleName() : message).replaceAll("\\s*\\R\\s*", " "), e);
    }
}
