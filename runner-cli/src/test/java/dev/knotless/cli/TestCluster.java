package dev.knotless.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The admin kubeconfig of the project's test cluster ({@code scripts/test-cluster up} starts it). */
final class TestCluster {

    private TestCluster() {}

    static String adminKubeconfig() throws Exception {
        Path root = CliReferenceTest.reference().getParent().getParent().getParent();
        Process p = new ProcessBuilder(root.resolve("scripts/test-cluster").toString(), "kubeconfig")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (p.waitFor() != 0 || !Files.exists(Path.of(out))) {
            throw new IllegalStateException("the test cluster is not up (scripts/test-cluster up): " + out);
        }
        return out;
    }

}
