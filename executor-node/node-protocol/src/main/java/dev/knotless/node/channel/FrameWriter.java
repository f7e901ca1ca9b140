package dev.knotless.node.channel;

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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The one thread that writes to a connection's socket. Senders queue whole frames and wait until
 * theirs is written; frames therefore never interleave, and queued frames go out in one flush.
 *
 * <p>Why a thread rather than a lock: a virtual thread interrupted while blocked in a socket write
 * closes the socket. An application interrupting its own writer must lose that write, not the
 * connection every other stream shares; here only this thread ever blocks on the socket.
 */
final class FrameWriter {

    /** Frames gathered into one flush, at most. */
    private static final int BATCH_BYTES = 256 * 1024;

    private record Pending(int type, int stream, byte @Nullable [] payload, int off, int len, @Nullable Runnable action,
            @Nullable CompletableFuture<@Nullable Void> written) {
        int size() {
            return Frames.HEADER_BYTES + len;
        }
    }

    private final OutputStream out;
    private final Consumer<IOException> onFailure;
    private final int maxPosted;
    /** Frames queued by {@link #post} and not yet written: bounded, as the peer decides how many it provokes. */
    private final AtomicInteger posted = new AtomicInteger();
    private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    private final byte[] header = new byte[Frames.HEADER_BYTES];
    private final Thread thread;
    /** Set once; guarded by queue so that nothing is queued after the queue has been failed. */
    private @Nullable String failure;

    FrameWriter(OutputStream out, String name, int maxPosted, Consumer<IOException> onFailure) {
        this.out = out;
        this.onFailure = onFailure;
        this.maxPosted = maxPosted;
        this.thread = Thread.ofVirtual().name(name).start(this::writeLoop);
    }

    /** Queues a frame and waits until it has been written (or the connection has failed). */
    void write(int type, int stream, byte[] payload, int off, int len) throws IOException {
        CompletableFuture<Void> written = new CompletableFuture<>();
        enqueue(new Pending(type, stream, payload, off, len, null, written));
        await(written);
    }

    /**
     * Queues a frame without waiting: for the reader thread, which must never block on the network.
     * False, and nothing queued, when {@code maxPosted} such frames are waiting already.
     */
    boolean post(int type, int stream, byte[] payload) {
        if (posted.incrementAndGet() > maxPosted) {
            posted.decrementAndGet();
            return false;
        }
        try {
            enqueue(new Pending(type, stream, payload, 0, payload.length, null, null));
        } catch (IOException e) {
            // Failed already; nobody needs this frame any more.
            posted.decrementAndGet();
        }
        return true;
    }

    /** Runs {@code action} on the writer thread after every frame queued before it; waits at most {@code millis}. */
    void runAfterQueued(Runnable action, long millis) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            enqueue(new Pending(0, 0, null, 0, 0, action, done));
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

    private static void await(CompletableFuture<Void> written) throws IOException {
        try {
            written.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // The frame may still go out; the connection is unharmed either way.
            throw new InterruptedIOException("interrupted waiting for a frame to be written");
        } catch (ExecutionException e) {
            throw new IOException(e.getCause().getMessage());
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
                for (Pending p : batch) {
                    if (p.written() == null) {
                        posted.decrementAndGet();
                    }
                }
                batch.forEach(p -> complete(p, null));
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
