package dev.knotless.node.cni;

/**
 * A network operation failed. The message is one line: the plugin (or the host step) that failed,
 * the container, and the CNI error code and message when a plugin gave one.
 */
public final class NetworkException extends Exception {
    public NetworkException(String message) {
        super(message);
    }
}
