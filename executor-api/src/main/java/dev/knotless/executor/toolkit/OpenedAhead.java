package dev.knotless.executor.toolkit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The carrier of a session's next step, opened on a virtual thread while the current step runs
 * (an exec whose receiver waits for its payload), so that the next step does not wait for the
 * engine or the API server to set one up. At most one waits; one replaced, or opened after the
 * session closed, is discarded.
 *
 * <p>Concurrency: {@link #open}, {@link #take} and {@link #close} may be called from any thread.
 */
public final class OpenedAhead<T> {

    /** Opens a carrier; any exception means there is none. */
    @FunctionalInterface
    public interface Opener<T> {
        T open() throws Exception;
    }

    private final String name;
    private final Consumer<T> discard;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicReference<@Nullable CompletableFuture<T>> next = new AtomicReference<>();

    /** @param discard ends a carrier nobody will use */
    public OpenedAhead(String name, Consumer<T> discard) {
        this.name = name;
        this.discard = discard;
    }

    /** Starts opening the next carrier, replacing the one waiting; nothing once closed. */
    public void open(Opener<T> opener) {
        if (closed.get()) {
            return;
        }
        CompletableFuture<T> opening = new CompletableFuture<>();
        discard(next.getAndSet(opening));
        Thread.ofVirtual().name("open-ahead-" + name).start(() -> {
            try {
                opening.complete(opener.open());
            } catch (Exception e) {
                opening.completeExceptionally(e);
            }
            if (closed.get()) {
                discard(next.getAndSet(null));
            }
        });
    }

    /** The carrier opened ahead, waiting for one being opened; null when none is there or it could not be opened. */
    public @Nullable T take() {
        CompletableFuture<T> opening = next.getAndSet(null);
        if (opening == null) {
            return null;
        }
        try {
            return opening.join();
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The session is closed: nothing is opened any more, and the carrier waiting is discarded. */
    public void close() {
        closed.set(true);
        discard(next.getAndSet(null));
    }

    private void discard(@Nullable CompletableFuture<T> opening) {
        if (opening != null) {
            opening.whenComplete((carrier, failed) -> {
                if (carrier != null) {
                    discard.accept(carrier);
                }
            });
        }
    }
}
