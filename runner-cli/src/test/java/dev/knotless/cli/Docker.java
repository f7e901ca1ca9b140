package dev.knotless.cli;

import java.io.IOException;
import java.util.List;

/** The docker CLI as an independent witness of what the runner left behind. */
final class Docker {

    private Docker() {}

    /** Every container labelled with the runner: its runs' and its warm ones. */
    static List<String> containersOf(String runnerId) throws IOException, InterruptedException {
        return ps(runnerId).stream().map(line -> line.split(" ")[0]).toList();
    }

    /**
     * The runner's containers that belong to runs, not the warm ones waiting for a run (the daemon
     * keeps those by default). A waiting one is named {@code knotless-warm-…}; a run that takes it
     * renames it to the run's name but keeps its labels, so the name tells them apart, not the label.
     */
    static List<String> runContainersOf(String runnerId) throws IOException, InterruptedException {
        return ps(runnerId).stream().filter(line -> !waiting(line)).map(line -> line.split(" ")[0]).toList();
    }

    /** The runner's warm containers waiting for a run. */
    static List<String> warmContainersOf(String runnerId) throws IOException, InterruptedException {
        return ps(runnerId).stream().filter(Docker::waiting).map(line -> line.split(" ")[0]).toList();
    }

    private static boolean waiting(String line) {
        return line.split(" ")[1].startsWith("knotless-warm-");
    }

    /** "ID NAME" lines of the runner's containers. */
    private static List<String> ps(String runnerId) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("docker", "ps", "-a", "--filter", "label=dev.knotless.runner=" + runnerId,
                "--format", "{{.ID}} {{.Names}}").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        if (p.waitFor() != 0) {
            throw new IOException("docker ps failed: " + out);
        }
        return out.isEmpty() ? List.of() : out.lines().map(String::strip).toList();
    }
}
