package dev.knotless.node.channel;

import java.time.Duration;

/**
 * Timing and limits of a channel. Each side sends a PING every {@code keepalive} and closes the
 * connection when nothing at all has arrived for three of them; {@code handshakeTimeout} bounds the
 * TLS handshake on the server (the client uses the timeout it is given); {@code limits} bound what
 * the peer can make this side hold.
 */
public record ChannelOptions(Duration keepalive, Duration handshakeTimeout, ChannelLimits limits) {

    /**
     * A handshake may take 30 s: a node's fresh JVM on a loaded host (a first TLS handshake loads
     * and verifies the JSSE classes) once needed more than 10 s, and the server then dropped its
     * enrolment without a word. A silent client still holds only one virtual thread meanwhile.
     */
    public static final ChannelOptions DEFAULTS = new ChannelOptions(Duration.ofSeconds(15), Duration.ofSeconds(30));

    public ChannelOptions(Duration keepalive, Duration handshakeTimeout) {
        this(keepalive, handshakeTimeout, ChannelLimits.DEFAULTS);
    }

    public ChannelOptions {
        if (limits == null) {
            throw new IllegalArgumentException("limits are missing");
        }
        if (keepalive == null || keepalive.toMillis() < 10) {
            throw new IllegalArgumentException("keepalive must be at least 10 ms");
        }
        if (handshakeTimeout == null || handshakeTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("handshake timeout must be at least 1 ms");
        }
    }

    public ChannelOptions withKeepalive(Duration every) {
        return new ChannelOptions(every, handshakeTimeout, limits);
    }

    public ChannelOptions withLimits(ChannelLimits bounds) {
        return new ChannelOptions(keepalive, handshakeTimeout, bounds);
    }

    /** Silence longer than this closes the connection. */
    public Duration silenceLimit() {
        return keepalive.multipliedBy(3);
    }
}
