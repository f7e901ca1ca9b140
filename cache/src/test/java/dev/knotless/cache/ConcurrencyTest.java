package dev.knotless.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConcurrencyTest {

    private static final CacheKey KEY = new CacheKey("acme/widgets", "ci:/root/.m2");

    @TempDir
    Path root;

    @Test
    void concurrentPromotesOfOneKeyLeaveOneWholeLayerFromOneOfThem() throws Exception {
        CacheStore store = new CacheStore(root, 1L << 30, Clock.systemUTC());
        int runs = 8;
        List<byte[]> tars = new ArrayList<>();
        for (int i = 0; i < runs; i++) {
            tars.add(Tars.withFile("f", Tars.random(i, 200_000)));
        }
        List<String> whole = tars.stream().map(Tars::sha).toList();
        CyclicBarrier start = new CyclicBarrier(runs + 1);
        AtomicBoolean promoting = new AtomicBoolean(true);
        ExecutorService pool = Executors.newFixedThreadPool(runs + 1);
        try {
            List<Future<?>> promotes = new ArrayList<>();
            for (int i = 0; i < runs; i++) {
                byte[] tar = tars.get(i);
                promotes.add(pool.submit(() -> {
                    Upper upper = Tars.upper(store, KEY, "run", tar);
                    start.await();
                    return store.promote(upper, "main");
                }));
            }
            // A run restoring while the others promote: every read is one whole layer.
            Future<Integer> reader = pool.submit(() -> {
                start.await();
                int reads = 0;
                while (promoting.get() || reads == 0) {
                    var layer = store.base(KEY, "main", "main");
                    if (layer.isPresent()) {
                        assertThat(whole).contains(Tars.sha(Tars.restore(store, layer.get())));
                        reads++;
                    }
                }
                return reads;
            });
            for (Future<?> promote : promotes) {
                assertThat(((Promotion) promote.get()).stored()).isTrue();
            }
            promoting.set(false);
            assertThat(reader.get()).isPositive();
        } finally {
            promoting.set(false);
            pool.shutdownNow();
        }

        assertThat(whole).contains(Tars.sha(Tars.restore(store, store.base(KEY, "main", "main").orElseThrow())));
        assertThat(store.list()).hasSize(1);
        assertThat(CacheStoreTest.filesUnder(root.resolve("layers"))).hasSize(2);
        assertThat(CacheStoreTest.filesUnder(root.resolve("staging"))).isEmpty();
    }

    @Test
    void twoStoresOnOneDirectoryInOneProcessTakeTurnsInsteadOfFailing() throws Exception {
        CacheStore one = new CacheStore(root, 1L << 30, Clock.systemUTC());
        CacheStore two = new CacheStore(root.resolve("."), 1L << 30, Clock.systemUTC());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (CacheStore store : List.of(one, two)) {
                runs.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        store.promote(Tars.upper(store, KEY, "run", Tars.withText("a", "run " + i)), "main");
                        store.base(KEY, "main", "main").orElseThrow();
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(one.list()).hasSize(1);
        assertThat(Tars.sha(Tars.restore(two, two.base(KEY, "main", "main").orElseThrow())))
                .isEqualTo(Tars.sha(Tars.withText("a", "run 19")));
    }

    @Test
    void aReaderKeepsReadingTheLayerItOpenedWhileAPromoteReplacesIt() throws IOException {
        CacheStore store = new CacheStore(root, 1L << 30, Clock.systemUTC());
        byte[] old = Tars.withFile("f", Tars.random(1, 8 << 20));
        byte[] replacement = Tars.withFile("f", Tars.random(2, 8 << 20));
        store.promote(Tars.upper(store, KEY, "run-1", old), "main");
        Layer layer = store.base(KEY, "main", "main").orElseThrow();
        Upper next = Tars.upper(store, KEY, "run-2", replacement);

        ByteArrayOutputStream read = new ByteArrayOutputStream();
        store.restore(layer).writeTo(new AfterFirstWrite(read, () -> store.promote(next, "main")));

        assertThat(Tars.sha(read.toByteArray())).isEqualTo(Tars.sha(old));
        Layer now = store.base(KEY, "main", "main").orElseThrow();
        assertThat(Tars.sha(Tars.restore(store, now))).isEqualTo(Tars.sha(replacement));
    }

    @Test
    void aReaderKeepsReadingTheLayerItOpenedWhileItIsEvicted() throws IOException {
        CacheStore store = new CacheStore(root, 1L << 30, Clock.systemUTC());
        byte[] old = Tars.withFile("f", Tars.random(1, 8 << 20));
        store.promote(Tars.upper(store, KEY, "run-1", old), "main");
        Layer layer = store.base(KEY, "main", "main").orElseThrow();

        ByteArrayOutputStream read = new ByteArrayOutputStream();
        store.restore(layer).writeTo(new AfterFirstWrite(read, () -> store.prune(0L)));

        assertThat(Tars.sha(read.toByteArray())).isEqualTo(Tars.sha(old));
        assertThat(store.list()).isEmpty();
    }

    interface IoAction {
        void run() throws IOException;
    }

    /** Runs an action on the first write, i.e. once the reader has the file open and is part-way through it. */
    private static final class AfterFirstWrite extends OutputStream {
        private final OutputStream out;
        private IoAction action;

        AfterFirstWrite(OutputStream out, IoAction action) {
            this.out = out;
            this.action = action;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            if (action != null) {
                IoAction now = action;
                action = null;
                try {
                    now.run();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
    }
}
