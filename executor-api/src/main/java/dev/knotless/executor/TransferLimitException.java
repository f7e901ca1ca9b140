package dev.knotless.executor;

import java.io.IOException;

/**
 * A transfer went over its byte limit or its deadline, or an archive was refused as unsafe.
 * Executors report it as {@link Failure.Kind#LIMIT} with this message.
 */
public class TransferLimitException extends IOException {
    public TransferLimitException(String message) {
        super(message);
    }
}
