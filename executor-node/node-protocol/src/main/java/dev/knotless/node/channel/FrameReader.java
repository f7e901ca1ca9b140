package dev.knotless.node.channel;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * A connection's reader: reads each frame, holds it to the protocol (a known type, a payload within
 * its type's cap, stream ids as {@link StreamIds} allows them, the caps {@link PeerAdmission}
 * counts) and hands it to its stream. Runs on a thread of its own until the connection ends, and
 * never waits to write: what it answers (PONG, RESET, credit) is queued.
 */
record FrameReader(Connection connection, DataInputStream in, StreamIds ids, PeerAdmission admission,
        ChannelOptions options) implements Runnable {

    /** Reads until the connection ends, then closes it with why. */
    @Override
    public void run() {
        String reason;
        try {
            while (true) {
                int type = in.read();
                if (type < 0) {
                    reason = "closed by " + connection.peer();
                    break;
                }
                int stream = in.readInt();
                int length = in.readInt();
                int max = Frames.maxPayload(type);
                if (max < 0) {
                    throw new ProtocolViolation("unknown frame " + Frames.name(type));
                }
                if (length < 0 || length > max) {
                    throw new ProtocolViolation(Frames.name(type) + " frame of " + Integer.toUnsignedString(length)
                            + " bytes; at most " + max + " allowed");
                }
                if (type == Frames.OPEN && refusedOpen(stream, length)) {
                    in.skipNBytes(length);
                    continue;
                }
                byte[] payload = new byte[length];
                in.readFully(payload);
                dispatch(type, stream, payload);
            }
        } catch (SocketTimeoutException e) {
            reason = "keepalive timeout: nothing received from " + connection.peer() + " for "
                    + options.silenceLimit().toMillis() + " ms";
        } catch (ProtocolViolation e) {
            reason = "protocol error from " + connection.peer() + ": " + e.getMessage();
        } catch (EOFException e) {
            reason = "connection lost: " + connection.peer() + " closed it in the middle of a frame";
        } catch (IOException e) {
            reason = "connection lost: " + e.getMessage();
        }
        connection.readerEnded(reason);
    }

    private void dispatch(int type, int id, byte[] payload) throws ProtocolViolation {
        switch (type) {
            case Frames.OPEN -> {
                // refusedOpen has checked the id and the caps; only the reader thread counts streams in.
                ids.peerOpened(id);
                admission.admitted(payload.length);
                connection.opened(id, payload);
            }
            case Frames.DATA -> {
                Stream s = known(id);
                if (s != null) {
                    s.receive(payload);
                }
            }
            case Frames.FIN -> {
                Stream s = known(id);
                if (s != null) {
                    s.remoteFin();
                }
            }
            case Frames.RESET -> {
                Stream s = known(id);
                if (s != null) {
                    s.remoteReset(new String(payload, StandardCharsets.UTF_8));
                }
            }
            case Frames.WINDOW_UPDATE -> {
                int credit = payload.length == Frames.CREDIT_BYTES ? Frames.getInt(payload, 0) : 0;
                if (credit <= 0) {
                    throw new ProtocolViolation("WINDOW_UPDATE on stream " + id + " must carry a positive credit");
                }
                Stream s = known(id);
                if (s != null) {
                    s.credit(credit);
                }
            }
            case Frames.PING -> {
                requireConnectionFrame(type, id, payload.length == Frames.PING_BYTES);
                connection.post(Frames.PONG, 0, payload);
            }
            case Frames.PONG -> requireConnectionFrame(type, id, payload.length == Frames.PING_BYTES);
            default -> throw new ProtocolViolation("unexpected " + Frames.name(type) + " frame");
        }
    }

    /** An OPEN past a cap is reset at birth, its header skipped unread (a header over its size cap closes the connection). */
    private boolean refusedOpen(int id, int length) throws ProtocolViolation {
        ids.checkPeerOpen(id);
        String cap = admission.refusal(connection, length);
        if (cap != null) {
            ids.peerOpened(id);
            connection.post(Frames.RESET, id, ("refused: over " + cap).getBytes(StandardCharsets.UTF_8));
        }
        return cap != null;
    }

    /** The open stream {@code id}, or null for one that has ended; an id never opened is an error. */
    private @Nullable Stream known(int id) throws ProtocolViolation {
        Stream s = connection.stream(id);
        if (s != null) {
            return s;
        }
        if (!ids.everOpened(id)) {
            throw new ProtocolViolation("frame for stream " + Integer.toUnsignedString(id) + ", which was never opened");
        }
        return null;
    }

    private static void requireConnectionFrame(int type, int id, boolean sizeOk) throws ProtocolViolation {
        if (id != 0 || !sizeOk) {
            throw new ProtocolViolation(Frames.name(type) + " must be on stream 0 with " + Frames.PING_BYTES + " bytes");
        }
    }
}
