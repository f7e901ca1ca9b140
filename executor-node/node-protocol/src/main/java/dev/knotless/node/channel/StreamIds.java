package dev.knotless.node.channel;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The ids of one connection's streams. A client opens odd ids and a server even ones, as in
 * HTTP/2, each side in increasing order; so an id says which side opened it, and whether it was
 * ever opened: a frame for a stream that has ended is dropped, one for a stream never opened is a
 * protocol violation.
 */
final class StreamIds {

    private final boolean client;
    private final AtomicInteger nextLocal;
    /** Highest stream id the peer has opened; read and written by the reader thread only. */
    private int highestPeer;

    StreamIds(boolean client) {
        this.client = client;
        this.nextLocal = new AtomicInteger(client ? 1 : 2);
    }

    /** This side's next id; not positive once all are used. */
    int takeLocal() {
        return nextLocal.getAndAdd(2);
    }

    /** Whether {@code id} is one the peer opens. */
    boolean isPeer(int id) {
        // Clients open odd ids, servers even ones, as in HTTP/2.
        return ((id & 1) == 0) == client;
    }

    /** Checks the id of the peer's OPEN: one of the peer's, above every id it opened before. */
    void checkPeerOpen(int id) throws ProtocolViolation {
        if (!isPeer(id) || Integer.compareUnsigned(id, highestPeer) <= 0) {
            throw new ProtocolViolation("OPEN with stream id " + Integer.toUnsignedString(id)
                    + " (the peer's ids are " + (client ? "even" : "odd") + " and increasing; last was " + highestPeer + ")");
        }
    }

    /** The peer opened {@code id}, or had it refused: its next must be higher. */
    void peerOpened(int id) {
        highestPeer = id;
    }

    /** Whether either side ever opened {@code id}. */
    boolean everOpened(int id) {
        return isPeer(id) ? id != 0 && Integer.compareUnsigned(id, highestPeer) <= 0
                : Integer.compareUnsigned(id, nextLocal.get()) < 0 && id != 0;
    }
}
