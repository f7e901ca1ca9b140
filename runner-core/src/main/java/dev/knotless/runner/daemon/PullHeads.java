package dev.knotless.runner.daemon;

import dev.knotless.runner.checkout.CheckoutException;
import dev.knotless.runner.checkout.Mirror;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Fetches a pull request's head ref into a mirror. {@code Mirrors} fetches branches and tags only,
 * so a pull request's commits are not there until asked for. The ref keeps its name in the mirror
 * ({@code refs/pulls/N/head}); a later branch fetch's {@code --prune} leaves it alone.
 *
 * <p>Concurrency: the daemon's one planning thread calls it; git's own ref locks order it against
 * a concurrent branch fetch.
 */
final class PullHeads {

    private static final Pattern PULL_REF = Pattern.compile("refs/pulls/[1-9][0-9]{0,8}/head");

    private PullHeads() {}

    static void fetch(Mirror mirror, String location, String headRef, Duration timeout) throws IOException {
        if (!PULL_REF.matcher(headRef).matches()) {
            throw new IllegalArgumentException("not a pull request head ref: " + headRef);
        }
        Path errors = Files.createTempFile("knotless-fetch-", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(List.of("git", "-c", "gc.autoDetach=false", "fetch", "--quiet",
                    "--no-write-fetch-head", "--", location, "+" + headRef + ":" + headRef))
                    .directory(mirror.path().toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(errors.toFile());
            pb.environment().put("GIT_TERMINAL_PROMPT", "0");
            Process p = pb.start();
            try {
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    throw new CheckoutException("could not fetch " + headRef + " of " + mirror.repo() + ": timed out after "
                            + timeout.toSeconds() + "s");
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while fetching " + headRef + " of " + mirror.repo());
            }
            if (p.exitValue() != 0) {
                String why = Files.readString(errors).strip().replaceAll("\\s*\\R\\s*", " ")
                        .replaceAll("://[^/@\\s]+@", "://");
                throw new CheckoutException("could not fetch " + headRef + " of " + mirror.repo() + ": " + why);
            }
        } finally {
            Files.deleteIfExists(errors);
        }
    }
}
