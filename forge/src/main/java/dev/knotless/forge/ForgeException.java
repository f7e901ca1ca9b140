package dev.knotless.forge;

import java.io.IOException;

/** A forge could not be read or written; the message is one line that names the repository. */
public final class ForgeException extends IOException {
    private static final long serialVersionUID = 1L;

    public ForgeException(String message) {
        super(message);
    }

    public ForgeException(String message, Throwable cause) {
        super(message, cause);
    }
}
