package dev.knotless.executor.kubernetes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The admin kubeconfig of the project's test cluster, as {@code scripts/test-cluster kubeconfig} prints it. */
final class TestClusterConfig {

    private TestClusterConfig() {}

    static String adminKubeconfig() throws IOException, InterruptedException {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("scripts/test-cluster"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException("scripts/test-cluster not found above " + Path.of("").toAbsolutePath());
        }
        Process p = new ProcessBuilder(dir.resolve("scripts/test-cluster").toString(), "kubeconfig")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.waitFor() != 0 || !Files.exists(Path.of(out))) {
            throw new IllegalStateException("the test cluster is not up (scripts/test-cluster up): " + out);
        }
        return out;
    }
}
