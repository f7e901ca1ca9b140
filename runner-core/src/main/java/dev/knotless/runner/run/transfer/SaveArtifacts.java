package dev.knotless.runner.run.transfer;

import dev.knotless.cache.CacheStore;
import dev.knotless.cache.Promotion;
import dev.knotless.cache.Upper;
import dev.knotless.checks.SavedArtifacts;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.ShellPayload;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.runner.run.phase.Findings;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.tar.Bounded;
import dev.knotless.time.Deadline;
import java.io.IOException;
import java.util.List;
import dev.knotless.secrets.Masker;
import org.jspecify.annotations.Nullable;

/**
 * After a passing run, gathers the paths its workflow's {@code artifacts} name (patterns expanded
 * by the run's shell, relative to the workspace) into one directory of the run and streams it into
 * the artifact store ({@link Artifacts}). A value granted in the run found in them keeps them from being
 * saved, as for caches. Never fails the run: what cannot be saved is a line in the log, and a
 * dependent then finds no artifacts of it.
 */
public final class SaveArtifacts implements Phase {

    static final String GATHERED = "/tmp/.knotless-artifacts";
    private static final int LISTING_BYTES = 64 << 10;

    private final CacheStore store;
    private final RunRequest request;
    private final long limit;
    private final Masker masker;
    private final boolean granted;
    private @Nullable SavedArtifacts saved;

    /**
     * @param limit the largest tar of the artifacts taken out of the run
     * @param masker the values granted in the run, which keep artifacts holding one from being saved
     * @param granted whether any step of the run was granted a secret: its artifacts never reach an untrusted run
     */
    public SaveArtifacts(CacheStore store, RunRequest request, long limit, Masker masker, boolean granted) {
        this.store = store;
        this.request = request;
        this.limit = limit;
        this.masker = masker;
        this.granted = granted;
    }

    @Override
    public Findings addTo(Findings findings) {
        return findings.withArtifacts(saved);
    }

    @Override
    public void run(RunContext run) {
        List<String> patterns = request.workflow().artifacts();
        if (patterns.isEmpty()) {
            return;
        }
        Upper upper = null;
        String workspace = request.workflow().workspace().directory();
        try {
            StringBuilder script = new StringBuilder("d=" + GATHERED + "; rm -rf \"$d\" && mkdir -p \"$d\" && cd "
                    + ShellPayload.quote(workspace) + " || exit 1\nn=0\n");
            for (String pattern : patterns) {
                // patterns hold only [A-Za-z0-9._/*?-] (the parser's rule), so unquoted they are globs and nothing else
                script.append("for p in ").append(pattern.endsWith("/") ? pattern.substring(0, pattern.length() - 1) : pattern)
                        .append("; do [ -e \"$p\" ] || continue; mkdir -p \"$d/$(dirname \"$p\")\" && cp -R \"$p\" \"$d/$p\""
                                + " && n=$((n+1)) && [ \"$n\" -le " + SavedArtifacts.LISTED + " ] && printf 'path %s\\n' \"$p\"; done\n");
            }
            script.append("echo \"count $n\"\n");
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            StepOutcome outcome = run.session().run(StepPayload.probe("gather artifacts", List.of("/bin/sh", "-c", script.toString())),
                    (stream, buffer, offset, length) -> {
                        if (stream == dev.knotless.executor.OutputSink.Stream.STDOUT && out.size() < LISTING_BYTES) {
                            out.write(buffer, offset, Math.min(length, LISTING_BYTES - out.size()));
                        }
                    }, run.signal());
            if (!(outcome instanceof StepOutcome.Exited e) || e.exitCode() != 0) {
                run.log().notice("artifacts not saved: gathering them " + describe(outcome));
                return;
            }
            List<String> lines = out.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList();
            List<String> paths = lines.stream().filter(l -> l.startsWith("path ")).map(l -> l.substring(5))
                    .limit(SavedArtifacts.LISTED).toList();
            if (lines.contains("count 0")) {
                run.log().notice("artifacts: nothing in " + workspace + " matches " + String.join(", ", patterns));
                return;
            }
            upper = store.beginUpper(Artifacts.key(request.repo(), request.workflow().name()), request.runId(), granted);
            Upper u = upper;
            Deadline deadline = run.transferDeadline();
            LayerScan scan = new LayerScan(masker);
            run.session().download(GATHERED,
                    in -> u.sink().readFrom(scan.watch(Bounded.input(in, limit, deadline, "artifacts"))),
                    run.signal());
            if (scan.found()) {
                run.log().notice("artifacts not saved: a value granted in this run is in " + scan.holders("artifacts"));
                return;
            }
            Promotion p = store.keep(upper, Artifacts.ref(request));
            if (p.stored()) {
                saved = new SavedArtifacts(paths, p.bytes());
                run.log().notice("artifacts saved (" + Bounded.bytes(p.bytes()) + " compressed) for the workflows that need "
                        + request.workflow().name() + ": " + String.join(", ", paths));
            } else {
                run.log().notice("artifacts not saved: " + p.describe());
            }
        } catch (ExecutorException | IOException | RuntimeException e) {
            String why = e instanceof ExecutorException x ? x.failure().reason() : e.getMessage();
            run.log().notice("artifacts not saved: " + why);
        } finally {
            if (upper != null) {
                try {
                    store.drop(upper);
                } catch (IOException e) {
                    run.log().notice("artifacts: staging file not removed: " + e.getMessage());
                }
            }
        }
    }

    private static String describe(StepOutcome outcome) {
        return switch (outcome) {
            case StepOutcome.Exited e -> "exited with " + e.exitCode();
            case StepOutcome.Failed f -> "failed: " + f.failure().reason();
            default -> "was stopped";
        };
    }
}
