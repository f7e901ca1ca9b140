package dev.knotless.cli;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

/** The docker CLI as an independent witness of what the runner left behind. */
final class Docker {

    private Docker() {}

    static List<String> containersOf(String runnerId) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("docker", "ps", "-a", "-q", "--filter", "label=dev.knotless.runner=" + runnerId)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        if (p.waitFor() != 0) {
            throw new IOException("docker ps failed: " + out);
        }
        return out.isEmpty() ? List.of() : Arrays.asList(out.split("\\s+"));
    }
}
