package dev.knotless.atproto.xrpc;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * An XRPC call the server answered with an error, or whose answer could not be read. The message
 * is one line: the method, the status, the server's error name and its message (capped).
 *
 * @see #status()
 */
public final class XrpcException extends IOException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final @Nullable String error;

    public XrpcException(String message, int status, @Nullable String error) {
        super(message);
        this.status = status;
        this.error = error;
    }

    /** The HTTP status; 0 when the answer was not an XRPC answer at all (too large, not JSON). */
    public int status() {
        return status;
    }

    /** The server's error name ({@code ExpiredToken}, {@code RecordNotFound}, …), or null. */
    public @Nullable String error() {
        return error;
    }

    /**
     * Whether trying the same call again later may work: the server was busy or failing (5xx,
     * 429, 408), not refusing this call (other 4xx).
     */
    public boolean retryable() {
        return status == 0 || status >= 500 || status == 429 || status == 408;
    }
}
