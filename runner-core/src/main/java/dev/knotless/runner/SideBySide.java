package dev.knotless.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * Work on many items that is mostly waiting (git, an executor's API), done on virtual threads a
 * bounded number at a time, so that a thousand items neither take their sum nor ask a remote a
 * thousand things at once.
 */
public final class SideBySide {

    private SideBySide() {}

    /**
     * Applies {@code work} to each item, at most {@code atOnce} at a time, and returns once all
     * have ended: their futures, in the items' order (a future holds what its work threw).
     */
    public static <T, R> List<Future<R>> each(List<T> items, int atOnce, Function<? super T, ? extends R> work) {
        List<Future<R>> done = new ArrayList<>(items.size());
        Semaphore slots = new Semaphore(atOnce);
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (T item : items) {
                done.add(threads.submit(() -> {
                    slots.acquire();
                    try {
                        return work.apply(item);
                    } finally {
                        slots.release();
                    }
                }));
            }
        }
        return done;
    }
}
