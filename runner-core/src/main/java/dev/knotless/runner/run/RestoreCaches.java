package dev.knotless.runner.run;

import dev.knotless.cache.CacheStore;
import dev.knotless.cache.Layer;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.tar.Bounded;
import dev.knotless.time.Durations;
import java.io.IOException;
import java.util.Optional;

/**
 * Streams each cached path's base layer into the run before the steps. A miss is cold, not an
 * error; a broken layer is logged and the run goes on cold (a cache must never fail a build).
 */
final class RestoreCaches implements Phase {

    private final CacheStore caches;

    RestoreCaches(CacheStore caches) {
        this.caches = caches;
    }

    @Override
    public void run(RunState state) {
        for (CachePlan.Entry entry : state.cachePlan.entries()) {
            try {
                Optional<Layer> base = caches.base(entry.key(), state.request.ref(), state.request.defaultRef());
                if (base.isEmpty()) {
                    state.log.notice("cache " + entry.path() + ": cold (nothing stored yet)");
                    continue;
                }
                long started = System.nanoTime();
                state.session.upload(entry.path(), caches.restore(base.get()), state.runSignal);
                state.log.notice("cache " + entry.path() + ": restored from " + base.get().ref() + " ("
                        + Bounded.bytes(base.get().bytes()) + " compressed) in "
                        + Durations.human((System.nanoTime() - started) / 1_000_000));
            } catch (ExecutorException e) {
                if (e.failure().kind() == Failure.Kind.STOPPED) {
                    return;
                }
                state.log.notice("cache " + entry.path() + ": not restored, running cold: " + e.failure().reason());
            } catch (IOException | RuntimeException e) {
                state.log.notice("cache " + entry.path() + ": not restored, running cold: " + e.getMessage());
            }
        }
    }
}
