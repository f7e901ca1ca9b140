package dev.knotless.cli;

import java.io.IOException;
import java.util.List;

/** The docker CLI as an independent witness of what the runner left behind. */
final class Docker {

    private Docker() {}

    /** Every container labelled with the runner: its runs' and its warm ones. */
    static List<String> containersOf(String runnerId) throws IOException, InterruptedException {
        return ps("label=dev.knotless.runner=" + runnerId).stream().map(line -> line.split(" ")[0]).toList();
    }

    /** The runner's containers that belong to runs, not the warm ones waiting for a run (the daemon keeps those by default). */
    static List<String> runContainersOf(String runnerId) throws IOException, InterruptedException {
        return ps("label=dev.knotless.runner=" + runnerId).stream().filter(line -> !line.endsWith(" true"))
                .map(line -> line.split(" ")[0]).toList();
    }

    /** The runner's warm containers. */
    static List<String> warmContainersOf(String runnerId) throws IOException, InterruptedException {
        return ps("label=dev.knotless.runner=" + runnerId).stream().filter(line -> line.endsWith(" true"))
                .map(line -> line.split(" ")[0]).toList();
    }

    /** "ID WARM" lines, WARM being the warm label's value or empty. */
    private static List<String> ps(String filter) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("docker", "ps", "-a", "--filter", filter, "--format", "{{.ID}} {{.Label \"dev.knotless.warm\"}}")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        if (p.waitFor() != 0) {
            throw new IOException("docker ps failed: " + out);
        }
        return out.isEmpty() ? List.of() : out.lines().map(String::strip).toList();
    }
}
