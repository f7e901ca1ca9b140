package dev.knotless.node.channel;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts what the peer's open streams hold on one connection (streams, header bytes) against the
 * {@link ChannelLimits}, and remembers which caps were already logged so each gets one line.
 */
final class PeerAdmission {

    private static final Logger LOG = LoggerFactory.getLogger(PeerAdmission.class);

    private final ChannelLimits limits;
    private final AtomicInteger streams = new AtomicInteger();
    private final AtomicLong headerBytes = new AtomicLong();
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    PeerAdmission(ChannelLimits limits) {
        this.limits = limits;
    }

    /**
     * The cap a new stream with a header of {@code length} bytes would pass (logged the first time on
     * this connection), or null if it fits; a header over the size cap is a protocol violation.
     */
    @Nullable String refusal(Connection connection, int length) throws ProtocolViolation {
        if (length > limits.maxHeaderBytes()) {
            throw new ProtocolViolation("OPEN with a header of " + length + " bytes, over the stream header cap of "
                    + limits.maxHeaderBytes() + " bytes");
        }
        String cap = null;
        if (streams.get() >= limits.maxPeerStreams()) {
            cap = "the open stream cap of " + limits.maxPeerStreams();
        } else if (headerBytes.get() + length > limits.maxHeldHeaderBytes()) {
            cap = "the held header cap of " + limits.maxHeldHeaderBytes() + " bytes";
        }
        if (cap != null && logged.add(cap)) {
            LOG.warn("{}: refusing streams from {} past {} (logged once per connection)", connection, connection.peer(), cap);
        }
        return cap;
    }

    void admitted(int header) {
        streams.incrementAndGet();
        headerBytes.addAndGet(header);
    }

    void released(int header) {
        streams.decrementAndGet();
        headerBytes.addAndGet(-header);
    }
}
