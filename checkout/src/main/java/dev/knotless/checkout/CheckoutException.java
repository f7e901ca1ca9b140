package dev.knotless.checkout;

import java.io.IOException;

/**
 * A repository, revision or commit could not be reached, or git failed. The message is one line
 * meant for the user: it names the repository (without any password of its URL) and, when git
 * failed, carries git's own words.
 */
public final class CheckoutException extends IOException {

    public CheckoutException(String message) {
        super(message);
    }

    public CheckoutException(String message, Throwable cause) {
        super(message, cause);
    }
}
