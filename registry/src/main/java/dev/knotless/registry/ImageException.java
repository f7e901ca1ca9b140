package dev.knotless.registry;

/** An image could not be pulled or unpacked; the message is one line that names what and why. */
public final class ImageException extends Exception {

    public ImageException(String message) {
        super(message);
    }

    public ImageException(String message, Throwable cause) {
        super(message, cause);
    }
}
