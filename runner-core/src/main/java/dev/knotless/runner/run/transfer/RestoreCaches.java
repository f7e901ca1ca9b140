package dev.knotless.runner.run.transfer;

import dev.knotless.cache.CacheStore;
import dev.knotless.cache.Layer;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Trust;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.time.Durations;
import dev.knotless.tar.Bounded;
import dev.knotless.time.Durations;
import java.io.IOException;
import java.util.Optional;

/**
 * Streams each cached path's base layer into the run before the steps. A miss is cold, not an
 * error; a broken layer is logged and the run goes on cold (a cache must never fail a build).
 *
 * @param ref the run's ref, whose base is restored; {@code defaultRef}'s when it has none
 */
public record RestoreCaches(CacheStore caches, CachePlan plan, String ref, String defaultRef, Trust trust) implements Phase {

    @Override
    public void run(RunContext run) {
        for (CachePlan.Entry entry : plan.entries()) {
            try {
                Optional<Layer> base = trust == Trust.UNTRUSTED
                        ? caches.baseForUntrusted(entry.key(), ref, defaultRef)
                        : caches.base(entry.key(), ref, defaultRef);
                if (base.isEmpty()) {
                    run.log().notice("cache " + entry.path() + ": cold (nothing stored yet"
                            + (trust == Trust.UNTRUSTED ? " by a run granted no secret, the only layers an untrusted run restores)" : ")"));
                    continue;
                }
                long started = System.nanoTime();
                run.session().upload(entry.path(), caches.restore(base.get()), run.signal());
                run.log().notice("cache " + entry.path() + ": restored from " + base.get().ref() + " ("
                        + Bounded.bytes(base.get().bytes()) + " compressed) in "
                        + Durations.human((System.nanoTime() - started) / 1_000_000));
            } catch (ExecutorException e) {
                if (e.failure().kind() == Failure.Kind.STOPPED) {
                    return;
                }
                run.log().notice("cache " + entry.path() + ": not restored, running cold: " + e.failure().reason());
            } catch (IOException | RuntimeException e) {
                run.log().notice("cache " + entry.path() + ": not restored, running cold: " + e.getMessage());
            }
        }
    }
}
