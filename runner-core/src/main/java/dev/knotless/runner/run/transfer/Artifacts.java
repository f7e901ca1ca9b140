package dev.knotless.runner.run.transfer;

import dev.knotless.cache.CacheKey;
import dev.knotless.runner.run.request.RunRequest;

/**
 * Where a run's artifacts are kept: layers of the runner's cache store (so they count in its budget
 * and are evicted least recently used first), one per workflow run, under a ref naming the commit,
 * event and trust. A dependent finds its needs' artifacts by the same three, so an untrusted run's
 * artifacts never reach a trusted run, and a pull request's never a push's.
 */
public final class Artifacts {

    /** Where a dependent finds them: {@code /artifacts/<workflow>/}. */
    static final String ROOT = "/artifacts";

    private Artifacts() {}

    static CacheKey key(String repo, String workflow) {
        return new CacheKey(repo, "artifacts:" + workflow);
    }

    static String ref(RunRequest r) {
        return ref(r.commit(), r.event(), r.trust());
    }

    static String ref(String commit, dev.knotless.checks.Event event, dev.knotless.executor.Trust trust) {
        return "artifacts/" + commit + "/" + event.wireName() + "/" + trust.name().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * The archive (a tar) a run with check {@code check} and {@code trust} saved; empty when it saved
     * none, or it was evicted. A rerun at the same commit replaces it.
     */
    public static java.util.Optional<dev.knotless.executor.TarSource> saved(dev.knotless.cache.CacheStore store,
            dev.knotless.checks.Check check, dev.knotless.executor.Trust trust) throws java.io.IOException {
        if (check.artifacts() == null) {
            return java.util.Optional.empty();
        }
        String ref = ref(check.commit(), check.event(), trust);
        return store.base(key(check.repo(), check.workflow()), ref, ref).map(store::restore);
    }

    /**
     * Where a workflow's artifacts go: its name as one plain path segment, which every executor
     * takes: {@code build (jdk=21, db=postgres)} is {@code /artifacts/build-jdk=21,db=postgres}.
     */
    static String directory(String workflow) {
        String plain = workflow.replace(", ", ",").replaceAll("[^A-Za-z0-9._@+=,-]+", "-").replaceAll("^-+|-+$", "");
        return ROOT + "/" + (plain.isEmpty() || plain.chars().allMatch(c -> c == '.') ? "_" : plain);
    }
}
