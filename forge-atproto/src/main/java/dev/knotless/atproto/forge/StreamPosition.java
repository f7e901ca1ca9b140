package dev.knotless.atproto.forge;

import java.io.IOException;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * Where a followed stream stands: its cursor in memory, which the next dial asks for, and in the
 * {@link StreamCursor} that keeps it across restarts. A save that fails is one line, and one more
 * when saving works again; the cursor stays to save meanwhile. Thread-safe: the reader thread
 * moves it while a timer or close saves it.
 */
final class StreamPosition {

    private final StreamCursor store;
    private final StreamLines lines;
    private final Consumer<String> say;
    /** Held while saving or forgetting, so that the store is written in the order the cursor moved. */
    private final Object writing = new Object();

    // Guarded by this.
    private long cursor = -1;
    private boolean dirty;
    private boolean saveFailing;

    StreamPosition(StreamCursor store, StreamLines lines, Consumer<String> say) {
        this.store = store;
        this.lines = lines;
        this.say = say;
    }

    /** Reads the stored cursor into memory: empty, said, when it cannot be read (the stream is followed from now). */
    OptionalLong load() {
        OptionalLong stored;
        try {
            stored = store.load();
        } catch (IOException e) {
            say.accept(lines.cannotRead(store, e));
            stored = OptionalLong.empty();
        }
        synchronized (this) {
            cursor = stored.orElse(-1);
        }
        return stored;
    }

    /** The cursor: the position of the last frame handled; -1 before any. */
    synchronized long get() {
        return cursor;
    }

    /** Past a frame at {@code position} (-1: none): see {@link StreamFrame} for {@code exact}. */
    synchronized void take(long position, boolean exact) {
        if (position >= 0) {
            moveTo(exact ? position : Math.max(cursor, position));
        }
    }

    /** Back to {@code to} (-1: from now): a frame after it failed and comes again. */
    synchronized void rewind(long to) {
        moveTo(to);
    }

    private void moveTo(long next) {
        if (next != cursor) {
            cursor = next;
            dirty = true;
        }
    }

    /** Drops the cursor, held and stored: the server no longer knows it. */
    void forget() {
        synchronized (writing) {
            synchronized (this) {
                cursor = -1;
                dirty = false;
            }
            try {
                store.forget();
            } catch (IOException e) {
                say.accept(lines.cannotKeep("remove", store, e));
            }
        }
    }

    /** Saves the cursor if it moved; when that fails it stays to save, and the failure is thrown. */
    void save() throws IOException {
        synchronized (writing) {
            long at;
            synchronized (this) {
                if (!dirty) {
                    return;
                }
                at = cursor;
                dirty = false;
            }
            try {
                if (at < 0) {
                    store.forget();
                } else {
                    store.save(at);
                }
            } catch (IOException | RuntimeException e) {
                synchronized (this) {
                    dirty = true;
                }
                throw e;
            }
        }
    }

    /** {@link #save()}, a failure said once, and once more when a save works again. */
    void saveQuietly() {
        try {
            save();
            synchronized (this) {
                if (saveFailing) {
                    say.accept(lines.savedAgain());
                    saveFailing = false;
                }
            }
        } catch (IOException | RuntimeException e) {
            synchronized (this) {
                if (!saveFailing) {
                    say.accept(lines.cannotSave(store, e));
                    saveFailing = true;
                }
            }
        }
    }

    /** The save on close: no later one comes, so a failure is said whatever was said before. */
    void saveLast() {
        try {
            save();
        } catch (IOException | RuntimeException e) {
            say.accept(lines.cannotKeep("save", store, e));
        }
    }
}
