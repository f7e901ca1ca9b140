package dev.knotless.node.channel;

/**
 * The wire format: {@code type u8 | stream u32 | length u32 | payload}, big-endian. Each type has a
 * fixed bound on its payload, checked before a byte of it is read.
 */
final class Frames {

    static final int OPEN = 1;
    static final int DATA = 2;
    static final int FIN = 3;
    static final int RESET = 4;
    static final int WINDOW_UPDATE = 5;
    static final int PING = 6;
    static final int PONG = 7;
    /** Sent once by the server after it has checked the client's pin; the client waits for it. */
    static final int READY = 8;

    static final int HEADER_BYTES = 9;
    static final int MAX_OPEN_HEADER = 32 * 1024 * 1024;
    /** So that a full DATA frame, header included, is exactly four full TLS records (4 × 16 KiB). */
    static final int MAX_DATA = 64 * 1024 - HEADER_BYTES;
    static final int MAX_REASON = 1024;
    static final int PING_BYTES = 8;
    static final int CREDIT_BYTES = 4;

    /** Each stream's receive window: the bytes a sender may have in flight before the reader reads. */
    static final int INITIAL_WINDOW = 1024 * 1024;
    /** Credit goes back once this much has been read, so updates are few but the pipe stays full. */
    static final int RETURN_THRESHOLD = INITIAL_WINDOW / 4;

    private Frames() {}

    /** The largest payload a frame of {@code type} may carry, or -1 for an unknown type. */
    static int maxPayload(int type) {
        return switch (type) {
            case OPEN -> MAX_OPEN_HEADER;
            case DATA -> MAX_DATA;
            case FIN, READY -> 0;
            case RESET -> MAX_REASON;
            case WINDOW_UPDATE -> CREDIT_BYTES;
            case PING, PONG -> PING_BYTES;
            default -> -1;
        };
    }

    static String name(int type) {
        return switch (type) {
            case OPEN -> "OPEN";
            case DATA -> "DATA";
            case FIN -> "FIN";
            case RESET -> "RESET";
            case WINDOW_UPDATE -> "WINDOW_UPDATE";
            case PING -> "PING";
            case PONG -> "PONG";
            case READY -> "READY";
            default -> "type " + type;
        };
    }

    static void putHeader(byte[] into, int type, int stream, int length) {
        into[0] = (byte) type;
        putInt(into, 1, stream);
        putInt(into, 5, length);
    }

    static void putInt(byte[] into, int at, int value) {
        into[at] = (byte) (value >>> 24);
        into[at + 1] = (byte) (value >>> 16);
        into[at + 2] = (byte) (value >>> 8);
        into[at + 3] = (byte) value;
    }

    static int getInt(byte[] from, int at) {
        return (from[at] & 0xff) << 24 | (from[at + 1] & 0xff) << 16 | (from[at + 2] & 0xff) << 8 | (from[at + 3] & 0xff);
    }
}
