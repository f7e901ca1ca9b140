package dev.knotless.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The local images integration tests run in, built by {@code scripts/test-images} (no registry is
 * needed or reachable). Building is idempotent and quick when the image exists.
 */
public final class TestImages {

    /** busybox (sh and the usual applets) and git. */
    public static final String BUSYBOX_GIT = "local/knotless-test:1";

    private TestImages() {}

    /** Runs {@code scripts/test-images} from the repository root and returns {@link #BUSYBOX_GIT}. */
    public static String ensureBuilt() {
        Path script = repositoryRoot().resolve("scripts/test-images");
        try {
            Process p = new ProcessBuilder("bash", script.toString())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("scripts/test-images failed:\n" + output);
            }
            return BUSYBOX_GIT;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + script + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while building test images", e);
        }
    }

    /** The nearest directory above the working directory that holds {@code scripts/test-images}. */
    public static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isRegularFile(d.resolve("scripts/test-images"))) {
                return d;
            }
        }
        throw new IllegalStateException("no scripts/test-images above " + dir);
    }
}
