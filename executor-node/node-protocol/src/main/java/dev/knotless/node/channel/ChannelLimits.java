package dev.knotless.node.channel;

/**
 * What a connected peer can make this side hold, at most. Each cap is checked before anything is
 * allocated for what it bounds; past one, the stream is reset (too many streams, too many header
 * bytes held) or the connection closed (a header over the size cap, control frames the peer does not
 * read), with one log line naming the cap.
 *
 * <p>With the defaults a peer can make a connection hold at most {@code maxPeerStreams} × the 1 MiB
 * stream window of data, {@code maxHeldHeaderBytes} of headers and {@code maxQueuedControlFrames}
 * small control frames.
 *
 * @param maxPeerStreams         streams the peer may have open at once
 * @param maxHeaderBytes         bytes of one stream's header (a signed frame: its payload is at most 16 MiB)
 * @param maxHeldHeaderBytes     bytes of the headers of all streams the peer has open
 * @param maxQueuedControlFrames PONG, credit and RESET frames waiting for the socket (the peer does not read)
 */
public record ChannelLimits(int maxPeerStreams, int maxHeaderBytes, long maxHeldHeaderBytes, int maxQueuedControlFrames) {

    public static final ChannelLimits DEFAULTS = new ChannelLimits(128, 17 * 1024 * 1024, 64L * 1024 * 1024, 4096);

    public ChannelLimits {
        if (maxPeerStreams < 1 || maxHeaderBytes < 1 || maxHeldHeaderBytes < maxHeaderBytes || maxQueuedControlFrames < 16) {
            throw new IllegalArgumentException("channel limits must be positive, the held header bytes at least one header"
                    + " and the queued control frames at least 16");
        }
        if (maxHeaderBytes > Frames.MAX_OPEN_HEADER) {
            throw new IllegalArgumentException("a stream header is at most " + Frames.MAX_OPEN_HEADER + " bytes on the wire");
        }
    }
}
