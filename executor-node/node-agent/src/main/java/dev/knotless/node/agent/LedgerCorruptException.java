package dev.knotless.node.agent;

import java.io.IOException;

/**
 * The ledger is damaged somewhere other than a torn last record. The agent refuses to start rather
 * than forget executed actions, which it could then execute twice.
 */
public final class LedgerCorruptException extends IOException {
    public LedgerCorruptException(String message) {
        super(message);
    }
}
