package dev.knotless.runner.run.transfer;

import dev.knotless.cache.CacheKey;
import dev.knotless.checks.Event;
import dev.knotless.executor.Trust;
import dev.knotless.runner.run.request.RunRequest;
import java.util.List;

/**
 * What a run does with its workflow's {@code cache:} paths, by the trust table
 * (docs/design/caches.md): every run restores from the base of its ref, falling back to the
 * default branch; a passing push promotes what it leaves to its branch's base; a passing trusted
 * pull keeps it under the pull's own ref; untrusted runs, failures and cancels write nothing back.
 */
public record CachePlan(List<Entry> entries, Save save) {

    public enum Save { PROMOTE, KEEP, NONE }

    /** One cached path: where it is in the run and its key in the store. */
    public record Entry(String path, CacheKey key) {}

    public static CachePlan of(RunRequest r) {
        String workspace = r.workflow().workspace().directory();
        List<Entry> entries = r.workflow().cache().stream()
                .map(p -> {
                    String path = p.startsWith("/") ? p : workspace + "/" + p;
                    return new Entry(path, new CacheKey(r.repo(), r.workflow().name() + ":" + path));
                })
                .toList();
        Save save;
        if (r.trust() == Trust.UNTRUSTED) {
            save = Save.NONE;
        } else if (r.event() == Event.PUSH || r.event() == Event.MANUAL || r.event() == Event.SCHEDULE) {
            save = r.ref().startsWith("refs/") ? Save.PROMOTE : Save.NONE;
        } else if (r.event() == Event.PULL) {
            save = Save.KEEP;
        } else {
            save = Save.NONE;
        }
        return new CachePlan(entries, save);
    }
}
