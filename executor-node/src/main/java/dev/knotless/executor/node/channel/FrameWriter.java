package dev.knotless.executor.node.channel;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The one thread that writes to a connection's socket. Senders queue whole frames (a copy) and go
 * on while at most {@link #MAX_QUEUED_BYTES} are waiting, so a sender prepares its next frame
 * while this thread encrypts the last one; frames never interleave, keep their order, and queued
 * frames go out in one flush.
 *
 * <p>Why a thread rather than a lock: a virtual thread interrupted while blocked in a socket write
 * closes the socket. An application interrupting its own writer must lose that write, not the
 * connection every other stream shares; here only this thread ever blocks on the socket.
 */
final class FrameWriter {

    /** Frames gathered into one flush, at most. */
    private static final int BATCH_BYTES = 256 * 1024;
    /** Bytes of queued frames beyond which senders wait: the connection's own back-pressure. */
    static final int MAX_QUEUED_BYTES = 1024 * 1024;

    /** {@code budgeted}: queued by {@link #write}, its bytes count against the budget until written. */
    private record Pending(int type, int stream, byte[] payload, int off, int len, Runnable action,
            CompletableFuture<Void> written, boolean budgeted) {
        int size() {
            return Frames.HEADER_BYTES + len;
        }
    }

    private final OutputStream out;
    private final Consumer<IOException> onFailure;
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final byte[] header = new byte[Frames.HEADER_BYTES];
    private final Thread thread;
    private final Object budget = new Object();
    /** Payload bytes queued and not yet written; guarded by budget. */
    private long queuedBytes;
    /** Set once; guarded by queue so that nothing is queued after the queue has been failed. */
    private String failure;

    FrameWriter(OutputStream out, String name, Consumer<IOException> onFailure) {
        this.out = out;
        this.onFailure = onFailure;
        this.thread = Thread.ofVirtual().name(name).start(this::writeLoop);
    }

    /**
     * Queues a copy of a frame; waits only while the queue is over its budget. A failure of the
     * connection after this returns fails the stream's next operation, as every stream's.
     */
    void write(int type, int stream, byte[] payload, int off, int len) throws IOException {
        byte[] copy = java.util.Arrays.copyOfRange(payload, off, off + len);
        synchronized (budget) {
            while (queuedBytes >= MAX_QUEUED_BYTES) {
                String failed = failure();
                if (failed != null) {
                    throw new IOException(failed);
                }
                try {
                    budget.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted waiting for room to queue a frame");
                }
            }
            queuedBytes += len;
        }
        try {
            enqueue(new Pending(type, stream, copy, 0, len, null, null, true));
        } catch (IOException e) {
            release(len);
            throw e;
        }
    }

    private String failure() {
        synchronized (queue) {
            return failure;
        }
    }

    private void release(long bytes) {
        synchronized (budget) {
            queuedBytes -= bytes;
            budget.notifyAll();
        }
    }

    /** Queues a frame without waiting: for the reader thread, which must never block on the network. */
    void post(int type, int stream, byte[] payload) {
        try {
            enqueue(new Pending(type, stream, payload, 0, payload.length, null, null, false));
        } catch (IOException e) {
            // Failed already; nobody needs this frame any more.
        }
    }

    /** Runs {@code action} on the writer thread after every frame queued before it; waits at most {@code millis}. */
    void runAfterQueued(Runnable action, long millis) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            enqueue(new Pending(0, 0, null, 0, 0, action, done, false));
            done.get(millis, TimeUnit.MILLISECONDS);
        } catch (IOException | ExecutionException | TimeoutException e) {
            // Best effort.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Fails every queued and future frame with {@code reason}, and stops the thread. */
    void fail(String reason) {
        List<Pending> dropped = new ArrayList<>();
        synchronized (queue) {
            if (failure != null) {
                return;
            }
            failure = reason;
            queue.drainTo(dropped);
        }
        dropped.forEach(p -> complete(p, new IOException(reason)));
        synchronized (budget) {
            budget.notifyAll();
        }
        thread.interrupt();
    }

    private void enqueue(Pending p) throws IOException {
        synchronized (queue) {
            if (failure != null) {
                throw new IOException(failure);
            }
            queue.add(p);
        }
    }

    private void writeLoop() {
        List<Pending> batch = new ArrayList<>();
        try {
            while (true) {
                batch.add(queue.take());
                int bytes = batch.get(0).size();
                for (Pending next; bytes < BATCH_BYTES && (next = queue.poll()) != null; ) {
                    batch.add(next);
                    bytes += next.size();
                }
                for (Pending p : batch) {
                    if (p.action() != null) {
                        out.flush();
                        p.action().run();
                    } else {
                        Frames.putHeader(header, p.type(), p.stream(), p.len());
                        out.write(header);
                        out.write(p.payload(), p.off(), p.len());
                    }
                }
                out.flush();
                long written = 0;
                for (Pending p : batch) {
                    complete(p, null);
                    if (p.budgeted()) {
                        written += p.len();
                    }
                }
                if (written > 0) {
                    release(written);
                }
                batch.clear();
            }
        } catch (InterruptedException e) {
            // fail() stopped us.
        } catch (IOException | RuntimeException e) {
            IOException cause = e instanceof IOException io ? io : new IOException(e.getMessage(), e);
            onFailure.accept(cause);
        }
        String reason;
        synchronized (queue) {
            reason = failure != null ? failure : "the channel writer stopped";
        }
        batch.forEach(p -> complete(p, new IOException(reason)));
    }

    private static void complete(Pending p, IOException failed) {
        if (p.written() != null) {
            if (failed == null) {
                p.written().complete(null);
            } else {
                p.written().completeExceptionally(failed);
            }
        }
    }
}
