package dev.knotless.node.channel;

import java.io.IOException;

/** The peer broke the framing or flow-control rules; the connection is closed. */
final class ProtocolViolation extends IOException {
    ProtocolViolation(String message) {
        super(message);
    }
}
