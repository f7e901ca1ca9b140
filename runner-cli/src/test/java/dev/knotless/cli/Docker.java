package dev.knotless.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** The docker CLI as an independent witness of what the runner left behind. */
final class Docker {

    private Docker() {}

    /** One container of the runner as {@code docker ps} lists it. */
    private record Listed(String id, String name) {
        /** A warm container waiting for a run; a run that takes one renames it but keeps its labels. */
        boolean waiting() {
            return name.startsWith("knotless-warm-");
        }
    }

    /** Every container labelled with the runner: its runs' and its warm ones. */
    static List<String> containersOf(String runnerId) throws IOException, InterruptedException {
        return ps(runnerId).stream().map(Listed::id).toList();
    }

    /**
     * The runner's containers that belong to runs, not the warm ones waiting for a run (the daemon
     * keeps those by default). The name tells them apart, not the label ({@link Listed#waiting}).
     */
    static List<String> runContainersOf(String runnerId) throws IOException, InterruptedException {
        return ps(runnerId).stream().filter(c -> !c.waiting()).map(Listed::id).toList();
    }

    /** The runner's warm containers waiting for a run. */
    static List<String> warmContainersOf(String runnerId) throws IOException, InterruptedException {
        return ps(runnerId).stream().filter(Listed::waiting).map(Listed::id).toList();
    }

    /** Runs {@code command} in the running container {@code container}, which must end with 0. */
    static void exec(String container, String... command) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("docker", "exec", container));
        argv.addAll(List.of(command));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", argv) + " failed: " + out);
        }
    }

    private static List<Listed> ps(String runnerId) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("docker", "ps", "-a", "--filter", "label=dev.knotless.runner=" + runnerId,
                "--format", "{{.ID}} {{.Names}}").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        if (p.waitFor() != 0) {
            throw new IOException("docker ps failed: " + out);
        }
        return out.lines().map(String::strip).filter(line -> !line.isEmpty())
                .map(line -> line.split(" ", 2)).map(f -> new Listed(f[0], f.length > 1 ? f[1] : "")).toList();
    }
}
