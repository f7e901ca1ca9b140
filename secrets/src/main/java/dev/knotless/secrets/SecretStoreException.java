package dev.knotless.secrets;

/**
 * The secret store cannot do what was asked; the message says why in one line a user can act on
 * (a key file with loose permissions, a key that does not match, an unreadable file). It never
 * contains a secret value.
 */
public final class SecretStoreException extends RuntimeException {

    public SecretStoreException(String message) {
        super(message);
    }

    public SecretStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
