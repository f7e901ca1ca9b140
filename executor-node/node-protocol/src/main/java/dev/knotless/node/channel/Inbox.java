package dev.knotless.node.channel;

import java.util.ArrayDeque;

/**
 * What a stream has received and its application has not read yet, and the window the peer sends
 * against: the peer may be {@link Frames#INITIAL_WINDOW} bytes ahead of the reading, and what is
 * read (or discarded) goes back to it as credit once there is enough to be worth a frame. Not
 * thread-safe: its {@link Stream} guards it with its lock.
 */
final class Inbox {

    /** Bytes of a received frame not read yet: {@code bytes} from {@code from} on. */
    record Unread(byte[] bytes, int from) {
        int length() {
            return bytes.length - from;
        }
    }

    private final ArrayDeque<byte[]> chunks = new ArrayDeque<>();
    private int chunkOffset;
    /** Bytes the peer may still send before it must wait for credit. */
    private long allowance = Frames.INITIAL_WINDOW;
    /** Bytes read (or discarded) and not yet credited back to the peer. */
    private int unreturned;

    /** Counts {@code length} bytes of DATA on stream {@code id} against the window. */
    void charge(int id, int length) throws ProtocolViolation {
        if (length > allowance) {
            throw new ProtocolViolation("stream " + id + ": the peer sent " + length
                    + " bytes with only " + allowance + " of window left");
        }
        allowance -= length;
    }

    void add(byte[] data) {
        chunks.addLast(data);
    }

    boolean isEmpty() {
        return chunks.isEmpty();
    }

    /** Moves up to {@code len} unread bytes into {@code b} and counts them as read. */
    int read(byte[] b, int off, int len) {
        int n = 0;
        while (n < len && !chunks.isEmpty()) {
            byte[] head = chunks.peekFirst();
            int take = Math.min(len - n, head.length - chunkOffset);
            System.arraycopy(head, chunkOffset, b, off + n, take);
            n += take;
            chunkOffset += take;
            if (chunkOffset == head.length) {
                chunks.removeFirst();
                chunkOffset = 0;
            }
        }
        unreturned += n;
        return n;
    }

    /** The unread rest of the first frame, taken out whole (not copied) and counted as read. */
    Unread takeFirst() {
        byte[] head = chunks.removeFirst();
        int from = chunkOffset;
        chunkOffset = 0;
        unreturned += head.length - from;
        return new Unread(head, from);
    }

    int available() {
        int sum = 0;
        for (byte[] c : chunks) {
            sum += c.length;
        }
        return sum - chunkOffset;
    }

    /** Counts {@code length} bytes just received as read without keeping them: nobody will read them. */
    void drop(int length) {
        unreturned += length;
    }

    /** Drops what is unread and counts it as read: nobody will read it, and the peer must not wait for it. */
    void dropAll() {
        for (byte[] c : chunks) {
            unreturned += c.length;
        }
        unreturned -= chunkOffset;
        chunks.clear();
        chunkOffset = 0;
    }

    /** Drops what is unread without counting it: the stream has failed, and no credit goes back. */
    void clear() {
        chunks.clear();
    }

    /** Credit to return now, if enough has been consumed to be worth a frame; none after the peer's FIN. */
    int takeCredit(boolean remoteFin) {
        if (unreturned < Frames.RETURN_THRESHOLD || remoteFin) {
            return 0;
        }
        int give = unreturned;
        unreturned = 0;
        allowance += give;
        return give;
    }
}
