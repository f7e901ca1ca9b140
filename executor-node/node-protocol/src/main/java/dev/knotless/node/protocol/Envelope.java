package dev.knotless.node.protocol;

/**
 * What a runner signs: one action for one node, valid in a short window, under an idempotency key.
 * Times are milliseconds since the epoch (UTC), so the payload needs no date parsing.
 */
public record Envelope(int version, String node, long issuedAt, long expiresAt, String idempotencyKey, Action action) {

    public static final int VERSION = 1;

    public Envelope {
        if (version != VERSION) {
            throw new IllegalArgumentException("envelope version " + version + " is not supported (only " + VERSION + ")");
        }
        Names.node(node);
        Names.idempotencyKey(idempotencyKey);
        if (action == null) {
            throw new IllegalArgumentException("action is missing");
        }
        if (issuedAt < 0 || expiresAt < 0) {
            throw new IllegalArgumentException("issuedAt and expiresAt must be non-negative epoch milliseconds");
        }
    }

    public static Envelope of(String node, long issuedAt, long expiresAt, String idempotencyKey, Action action) {
        return new Envelope(VERSION, node, issuedAt, expiresAt, idempotencyKey, action);
    }
}
