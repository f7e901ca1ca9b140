package dev.knotless.runner.run.transfer;

import dev.knotless.cache.CacheStore;
import dev.knotless.cache.Promotion;
import dev.knotless.cache.Upper;
import dev.knotless.executor.ExecutorException;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.secrets.Masker;
import dev.knotless.tar.Bounded;
import dev.knotless.time.Deadline;
import java.io.IOException;

/**
 * After passing steps, streams each cached path out of the run into an upper layer and promotes
 * or keeps it as the {@link CachePlan} says. Runs only when every step passed; untrusted runs
 * never get here with anything to save. A layer that holds a value granted in the run ({@link
 * LayerScan}) is not saved at all (docs/guide/caches.md, "Secrets in caches"). A cache that
 * cannot be saved is logged, never a failure.
 *
 * @param limit the largest tar of one cached path taken out of the run
 * @param masker the values granted in the run, which keep a layer holding one from being saved
 * @param granted whether any step of the run was granted a secret: its layers never reach an untrusted run
 */
public record SaveCaches(CacheStore caches, CachePlan plan, RunRequest request, long limit, Masker masker, boolean granted)
        implements Phase {

    @Override
    public void run(RunContext run) {
        if (plan.entries().isEmpty()) {
            return;
        }
        if (plan.save() == CachePlan.Save.NONE) {
            run.log().notice("caches not saved: " + (request.trust() == dev.knotless.executor.Trust.UNTRUSTED
                    ? "untrusted runs never write caches back" : "this run's ref is not a branch"));
            return;
        }
        for (CachePlan.Entry entry : plan.entries()) {
            Upper upper = null;
            try {
                upper = caches.beginUpper(entry.key(), request.runId(), granted);
                Upper u = upper;
                Deadline deadline = run.transferDeadline();
                LayerScan scan = new LayerScan(masker);
                run.session().download(entry.path(),
                        in -> u.sink().readFrom(scan.watch(Bounded.input(in, limit, deadline, "cache " + entry.path()))),
                        run.signal());
                if (scan.found()) {
                    // the path is named, masked by the log, never the value
                    run.log().notice("cache " + entry.path() + ": not saved: a value granted in this run is in "
                            + scan.holders(entry.path()) + " (a cache reaches every later run, and steps never granted it)");
                    continue;
                }
                Promotion p = plan.save() == CachePlan.Save.PROMOTE
                        ? caches.promote(upper, request.ref())
                        : caches.keep(upper, request.ref());
                run.log().notice(p.describe());
            } catch (ExecutorException | IOException | RuntimeException e) {
                String why = e instanceof ExecutorException x ? x.failure().reason() : e.getMessage();
                run.log().notice("cache " + entry.path() + ": not saved: " + why);
            } finally {
                if (upper != null) {
                    try {
                        caches.drop(upper);
                    } catch (IOException e) {
                        run.log().notice("cache " + entry.path() + ": staging file not removed: " + e.getMessage());
                    }
                }
            }
        }
    }

}
