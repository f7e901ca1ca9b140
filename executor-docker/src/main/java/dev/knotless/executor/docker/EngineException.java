package dev.knotless.executor.docker;

import java.io.IOException;

/**
 * The Docker Engine answered with an error status, or could not be reached ({@link #status()} 0).
 * The message is the daemon's own one line.
 */
final class EngineException extends IOException {

    private final int status;

    EngineException(int status, String message) {
        super(message);
        this.status = status;
    }

    EngineException(String message, Throwable cause) {
        super(message, cause);
        this.status = 0;
    }

    int status() {
        return status;
    }

    boolean isNotFound() {
        return status == 404;
    }

    /** 404 on a container path: the container itself is gone (not a file inside it). */
    boolean isNoSuchContainer() {
        return status == 404 && getMessage() != null && getMessage().startsWith("No such container");
    }

    /** 409 "Container … is not running". */
    boolean isNotRunning() {
        return status == 409 && getMessage() != null && getMessage().contains("is not running");
    }
}
