package dev.knotless.runner.run.request;

import dev.knotless.checkout.FileTexts;
import dev.knotless.checkout.Mirror;
import dev.knotless.plan.CommitFiles;
import dev.knotless.plan.Dialect;
import dev.knotless.plan.WorkflowSet;
import dev.knotless.plan.dialects.Dialects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A commit's own workflows, read from the one directory that the rule of precedence picks
 * ({@link Dialects#sourceOf}): the same in {@code exec}, the daemon's planner, its schedules and
 * manual runs, and a queued run read again, so a commit's workflows are the same wherever they
 * are read.
 *
 * @param directory the directory read; empty when the commit has none of the dialects' directories
 * @param dialect what its files were read as; the standard one when there were none
 * @param set the workflows and the broken files
 */
public record CommitWorkflows(Optional<String> directory, Dialect dialect, WorkflowSet set) {

    /**
     * Reads {@code sha}'s workflows from {@code mirror}.
     *
     * @param withTangled whether tangled's directory is looked at ({@code exec}); the daemon leaves
     *     it to the spindle
     * @param dialect the dialect to read in, whatever the directories say (a repository's setting,
     *     {@code exec --dialect}); null for the rule
     */
    public static CommitWorkflows read(Mirror mirror, String sha, boolean withTangled, @Nullable Dialect dialect)
            throws IOException {
        Map<String, FileTexts> seen = new HashMap<>();
        try {
            Optional<Dialects.Source> source;
            if (dialect != null) {
                source = dialect.directories().stream().filter(d -> present(mirror, sha, d, seen)).findFirst()
                        .map(d -> new Dialects.Source(dialect, d));
            } else {
                source = Dialects.sourceOf(d -> present(mirror, sha, d, seen), withTangled);
            }
            if (source.isEmpty()) {
                Dialect none = dialect != null ? dialect : Dialects.standard();
                return new CommitWorkflows(Optional.empty(), none, new WorkflowSet(List.of(), List.of()));
            }
            FileTexts files = seen.get(source.get().directory());
            return new CommitWorkflows(Optional.of(source.get().directory()), source.get().dialect(),
                    source.get().dialect().parseAll(files.texts(), files.refused(), files(mirror, sha)));
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** The other files of the commit, as the mirror reads them (each bounded), for what a workflow names beside it. */
    private static CommitFiles files(Mirror mirror, String sha) {
        return directory -> {
            try {
                FileTexts texts = mirror.texts(sha, directory);
                return new CommitFiles.Directory(texts.texts(), texts.refused());
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException(e.getMessage() == null ? e.toString() : e.getMessage(), e);
            }
        };
    }

    /** Whether the commit has any file in {@code directory} (a file too large to read counts). */
    private static boolean present(Mirror mirror, String sha, String directory, Map<String, FileTexts> seen) {
        try {
            FileTexts files = mirror.texts(sha, directory);
            seen.put(directory, files);
            return !files.texts().isEmpty() || !files.refused().isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
