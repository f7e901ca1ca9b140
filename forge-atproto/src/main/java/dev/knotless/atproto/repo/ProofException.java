package dev.knotless.atproto.repo;

/**
 * The proof is malformed, over a bound, or does not prove what it was asked to: one line naming
 * what failed, fit to print as it is.
 */
public final class ProofException extends Exception {

    private static final long serialVersionUID = 1L;

    public ProofException(String message) {
        super(message);
    }
}
