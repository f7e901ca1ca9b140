package dev.knotless.atproto.identity;

/** A DID that cannot be resolved, or a document or key that is not usable: one printable line. */
public final class IdentityException extends Exception {

    private static final long serialVersionUID = 1L;

    public IdentityException(String message) {
        super(message);
    }

    public IdentityException(String message, Throwable cause) {
        super(message, cause);
    }
}
