package dev.knotless.node.channel;

import dev.knotless.node.protocol.Ed25519Keys;
import java.security.PublicKey;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * The peers a side of the channel accepts: raw Ed25519 public keys, each naming a peer. The runner
 * pins each node's identity key to its node id; a node pins the runner's keys to {@code "runner"}.
 *
 * <p>Thread-safe. Pins are read during every handshake, so a key pinned or unpinned here takes
 * effect for the next connection; connections already open are not touched.
 */
public final class PeerPins {

    private volatile Map<String, String> namesByKeyHex = Map.of();

    public static PeerPins of(PublicKey key, String name) {
        return new PeerPins().pin(key, name);
    }

    public static PeerPins of(Map<PublicKey, String> names) {
        PeerPins pins = new PeerPins();
        names.forEach(pins::pin);
        return pins;
    }

    /** Pins {@code key} (an Ed25519 key) to {@code name}, replacing any name it had. */
    public synchronized PeerPins pin(PublicKey key, String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a pinned peer needs a name");
        }
        Map<String, String> next = new HashMap<>(namesByKeyHex);
        next.put(hex(Ed25519Keys.raw(key)), name);
        namesByKeyHex = Map.copyOf(next);
        return this;
    }

    public synchronized PeerPins unpin(PublicKey key) {
        Map<String, String> next = new HashMap<>(namesByKeyHex);
        next.remove(hex(Ed25519Keys.raw(key)));
        namesByKeyHex = Map.copyOf(next);
        return this;
    }

    /** The name pinned to this raw 32-byte key, if any. */
    public Optional<String> nameOf(byte[] rawKey) {
        return Optional.ofNullable(namesByKeyHex.get(hex(rawKey)));
    }

    public int size() {
        return namesByKeyHex.size();
    }

    private static String hex(byte[] raw) {
        return HexFormat.of().formatHex(raw);
    }
}
