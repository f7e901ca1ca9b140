package dev.knotless.node.channel;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * One bidirectional byte stream of a {@link Connection}, opened with a header.
 *
 * <p>Flow control: the receiving side buffers at most {@link Frames#INITIAL_WINDOW} unread bytes
 * ({@link Inbox}); {@link #out()} blocks when the peer has that much unread, and resumes as the
 * peer's application reads. A slow reader therefore holds back only its own stream. {@code
 * out().close()} is a half-close: the peer reads -1, and this side can still read. {@link #reset}
 * aborts both ways.
 *
 * <p>One thread may read while another writes; two concurrent writers interleave at frame
 * boundaries, so a stream should have one writer at a time. A write interrupted with
 * {@link java.io.InterruptedIOException} may or may not have sent its last frame: reset the stream.
 */
public final class Stream implements AutoCloseable {

    private final Connection connection;
    private final int id;
    private final byte[] header;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();

    // Receiving side, guarded by lock.
    private final Inbox inbox = new Inbox();
    private boolean remoteFin;
    private boolean inputClosed;

    // Sending side, guarded by lock.
    private long credit = Frames.INITIAL_WINDOW;
    private boolean localFin;

    /** Why this stream failed (reset either way, or the connection closed); null while healthy. */
    private @Nullable String failure;

    private final InputStream in = new In();
    private final OutputStream out = new Out();

    Stream(Connection connection, int id, byte[] header) {
        this.connection = connection;
        this.id = id;
        this.header = header;
    }

    public int id() {
        return id;
    }

    int headerBytes() {
        return header.length;
    }

    public byte[] header() {
        return header.clone();
    }

    /** The peer's bytes: -1 after the peer's half-close; an IOException after a reset or a closed channel. */
    public InputStream in() {
        return in;
    }

    /** Blocks while the peer has a full window unread; {@code close()} half-closes. */
    public OutputStream out() {
        return out;
    }

    /** Aborts both directions at once, without waiting; the peer's reads and writes fail with {@code why}. */
    public void reset(String why) {
        String reason = Objects.requireNonNullElse(why, "");
        lock.lock();
        try {
            if (failure != null || (localFin && remoteFin && inbox.isEmpty())) {
                return;
            }
            failure = "stream reset: " + reason;
            inbox.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        connection.forget(this);
        // Queued, not waited for: an abort must not wait behind a congested socket.
        connection.post(Frames.RESET, id, truncatedUtf8(reason, Frames.MAX_REASON));
    }

    /** Half-closes the output and stops reading (unread input is discarded). */
    @Override
    public void close() throws IOException {
        try {
            out.close();
        } finally {
            in.close();
        }
    }

    @Override
    public String toString() {
        return "stream " + id + " to " + connection.peer();
    }

    // ---- called by the connection's reader thread; none of these may block on the network ----

    void receive(byte[] data) throws ProtocolViolation {
        int returnNow = 0;
        lock.lock();
        try {
            if (remoteFin) {
                throw new ProtocolViolation("DATA after FIN on stream " + id);
            }
            inbox.charge(id, data.length);
            if (failure != null) {
                return;
            }
            if (inputClosed) {
                // Nobody will read these: hand the credit straight back so the peer's writer is not stuck.
                inbox.drop(data.length);
                returnNow = inbox.takeCredit(remoteFin);
            } else if (data.length > 0) {
                inbox.add(data);
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (returnNow > 0) {
            connection.sendCredit(id, returnNow);
        }
    }

    void remoteFin() throws ProtocolViolation {
        boolean done;
        lock.lock();
        try {
            if (remoteFin) {
                throw new ProtocolViolation("a second FIN on stream " + id);
            }
            remoteFin = true;
            changed.signalAll();
            done = localFin;
        } finally {
            lock.unlock();
        }
        if (done) {
            connection.forget(this);
        }
    }

    void remoteReset(String reason) {
        fail("stream reset by " + connection.peer() + ": " + reason);
        connection.forget(this);
    }

    void credit(int more) throws ProtocolViolation {
        lock.lock();
        try {
            credit += more;
            if (credit > Integer.MAX_VALUE) {
                throw new ProtocolViolation("stream " + id + ": the peer granted more than 2 GiB of window");
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    void fail(String why) {
        lock.lock();
        try {
            if (failure == null) {
                failure = why;
                inbox.clear();
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    // ---- application side ----

    private void await() throws InterruptedIOException {
        try {
            changed.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting on " + this);
        }
    }

    private final class In extends InputStream {

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            if (len == 0) {
                return 0;
            }
            int n;
            int returnNow;
            lock.lock();
            try {
                if (!awaitInput()) {
                    return -1;
                }
                n = inbox.read(b, off, len);
                returnNow = inbox.takeCredit(remoteFin);
            } finally {
                lock.unlock();
            }
            if (returnNow > 0) {
                connection.sendCredit(id, returnNow);
            }
            return n;
        }

        /**
         * Hands each frame's bytes to {@code out} as they arrived, without copying them into a
         * buffer of the caller's first: what {@link #read(byte[], int, int)} would give, in order.
         */
        @Override
        public long transferTo(OutputStream to) throws IOException {
            Objects.requireNonNull(to);
            long total = 0;
            while (true) {
                Inbox.Unread head;
                int returnNow;
                lock.lock();
                try {
                    if (!awaitInput()) {
                        return total;
                    }
                    head = inbox.takeFirst();
                    returnNow = inbox.takeCredit(remoteFin);
                } finally {
                    lock.unlock();
                }
                if (returnNow > 0) {
                    connection.sendCredit(id, returnNow);
                }
                // Outside the lock: the reader thread keeps filling the stream meanwhile.
                to.write(head.bytes(), head.from(), head.length());
                total += head.length();
            }
        }

        /**
         * Under lock: waits until there are bytes to read; false at the peer's half-close, an
         * IOException once none can come (reset, channel closed, input closed).
         */
        private boolean awaitInput() throws IOException {
            while (inbox.isEmpty()) {
                if (failure != null) {
                    throw new IOException(failure);
                }
                if (inputClosed) {
                    throw new IOException(Stream.this + ": input is closed");
                }
                if (remoteFin) {
                    return false;
                }
                await();
            }
            if (failure != null) {
                throw new IOException(failure);
            }
            return true;
        }

        @Override
        public int available() {
            lock.lock();
            try {
                return inbox.available();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void close() {
            int returnNow = 0;
            lock.lock();
            try {
                if (inputClosed) {
                    return;
                }
                inputClosed = true;
                inbox.dropAll();
                if (failure == null) {
                    returnNow = inbox.takeCredit(remoteFin);
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            if (returnNow > 0) {
                connection.sendCredit(id, returnNow);
            }
        }
    }

    private final class Out extends OutputStream {

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            while (len > 0) {
                int n;
                lock.lock();
                try {
                    while (true) {
                        if (failure != null) {
                            throw new IOException(failure);
                        }
                        if (localFin) {
                            throw new IOException(Stream.this + ": output is closed");
                        }
                        if (credit > 0) {
                            break;
                        }
                        await();
                    }
                    n = (int) Math.min(Math.min(len, credit), Frames.MAX_DATA);
                    credit -= n;
                } finally {
                    lock.unlock();
                }
                connection.send(Frames.DATA, id, b, off, n);
                off += n;
                len -= n;
            }
        }

        @Override
        public void close() throws IOException {
            boolean done;
            lock.lock();
            try {
                if (localFin || failure != null) {
                    return;
                }
                localFin = true;
                done = remoteFin;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            connection.send(Frames.FIN, id, new byte[0], 0, 0);
            if (done) {
                connection.forget(Stream.this);
            }
        }
    }

    private static byte[] truncatedUtf8(String s, int max) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= max) {
            return bytes;
        }
        int end = max;
        // Do not cut a multi-byte character in half.
        while (end > 0 && (bytes[end] & 0xc0) == 0x80) {
            end--;
        }
        return Arrays.copyOf(bytes, end);
    }
}
