package dev.knotless.runner.run;

import dev.knotless.cache.CacheStore;
import dev.knotless.cache.Promotion;
import dev.knotless.cache.Upper;
import dev.knotless.executor.ExecutorException;
import dev.knotless.tar.Bounded;
import dev.knotless.time.Deadline;
import java.io.IOException;

/**
 * After passing steps, streams each cached path out of the run into an upper layer and promotes
 * or keeps it as the {@link CachePlan} says. Runs only when every step passed; untrusted runs
 * never get here with anything to save. A layer that holds a value granted in the run ({@link
 * LayerScan}) is not saved at all (docs/guide/caches.md, "Secrets in caches"). A cache that
 * cannot be saved is logged, never a failure.
 */
final class SaveCaches implements Phase {

    private final CacheStore caches;

    SaveCaches(CacheStore caches) {
        this.caches = caches;
    }

    @Override
    public void run(RunState state) {
        CachePlan plan = state.cachePlan;
        if (plan.entries().isEmpty()) {
            return;
        }
        if (plan.save() == CachePlan.Save.NONE) {
            state.log.notice("caches not saved: " + (state.request.trust() == dev.knotless.executor.Trust.UNTRUSTED
                    ? "untrusted runs never write caches back" : "this run's ref is not a branch"));
            return;
        }
        for (CachePlan.Entry entry : plan.entries()) {
            Upper upper = null;
            try {
                upper = caches.beginUpper(entry.key(), state.request.runId());
                Upper u = upper;
                Deadline deadline = state.transferDeadline();
                LayerScan scan = new LayerScan(state.masking.masker());
                state.session.download(entry.path(),
                        in -> u.sink().readFrom(scan.watch(Bounded.input(in, state.limits.cacheBytes(), deadline, "cache " + entry.path()))),
                        state.runSignal);
                if (scan.found()) {
                    // the path is named, masked by the log, never the value
                    state.log.notice("cache " + entry.path() + ": not saved: a value granted in this run is in "
                            + scan.holders(entry.path()) + " (a cache reaches every later run, and steps never granted it)");
                    continue;
                }
                Promotion p = plan.save() == CachePlan.Save.PROMOTE
                        ? caches.promote(upper, state.request.ref())
                        : caches.keep(upper, state.request.ref());
                state.log.notice(p.describe());
            } catch (ExecutorException | IOException | RuntimeException e) {
                String why = e instanceof ExecutorException x ? x.failure().reason() : e.getMessage();
                state.log.notice("cache " + entry.path() + ": not saved: " + why);
            } finally {
                if (upper != null) {
                    try {
                        caches.drop(upper);
                    } catch (IOException e) {
                        state.log.notice("cache " + entry.path() + ": staging file not removed: " + e.getMessage());
                    }
                }
            }
        }
    }

}
