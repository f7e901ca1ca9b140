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

    /**
     * busybox, OpenJDK 17 and Maven, with an offline local repository for {@code examples/junit}.
     * Not built by {@link #ensureBuilt()}: it takes half a minute and Maven Central, so
     * {@code scripts/test} builds it before the suite and a test needing it calls {@link #requirePresent}.
     */
    public static final String JDK_MAVEN = "local/knotless-jdk:17";

    /**
     * busybox, OpenJDK 17 and Temurin 25 under {@code /usr/lib/jvm}, Maven, and an offline local
     * repository for {@code examples/junit} and {@code examples/shop}; built as {@link #JDK_MAVEN} is.
     */
    public static final String MAVEN = "local/knotless-maven:1";

    /** busybox, PostgreSQL 15's server (its command starts a throw-away one on 5432) and psql. */
    public static final String POSTGRES = "local/knotless-postgres:15";

    /** busybox and the host's Python 3 with its standard library; built as {@link #JDK_MAVEN} is. */
    public static final String PYTHON = "local/knotless-python:3";

    /**
     * An image that cannot be had, at an address that cannot answer: port 9 (discard) on loopback,
     * where nothing listens, so a pull fails at once with "connection refused". A name without a
     * registry ({@code local/...}) would send the Docker Engine or the kubelet to Docker Hub.
     */
    public static final String MISSING = "127.0.0.1:9/none:0";

    private TestImages() {}

    /** Runs {@code scripts/test-images test} from the repository root and returns {@link #BUSYBOX_GIT}. */
    public static String ensureBuilt() {
        Path script = repositoryRoot().resolve("scripts/test-images");
        try {
            Process p = new ProcessBuilder("bash", script.toString(), "test")
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

    /**
     * Returns {@code image} if the local Docker Engine has it, and otherwise fails with how to
     * build it: a test whose image is missing fails rather than being skipped, so a suite that
     * was meant to run it cannot pass without it.
     */
    public static String requirePresent(String image) {
        try {
            Process p = new ProcessBuilder("docker", "image", "inspect", "--format", "{{.Id}}", image)
                    .redirectErrorStream(true)
                    .start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(1, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("docker image inspect " + image + " did not answer within a minute");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException("image " + image + " is not in the local Docker Engine ("
                        + output.lines().findFirst().orElse("no output") + "); build it with scripts/test-images"
                        + " (scripts/test does so before the suite)");
            }
            return image;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run docker image inspect: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while looking for image " + image, e);
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
