package dev.knotless.cli;

import dev.knotless.testkit.TestRepo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C on the real launcher: the running step is stopped, the check says cancelled, an
 * {@code always()} step still runs, the exit status is 1 and no container is left. Runs {@code bin/knotless-run} as a separate process
 * (the package phase has built it) and sends it SIGINT as a terminal would.
 */
class InterruptIT {

    @TempDir Path tmp;

    @Test
    void ctrlCCancelsTheRunningStepCleanly() throws Exception {
        String runnerId = "interrupt-it-" + UUID.randomUUID().toString().substring(0, 8);
        TestRepo repo = new TestRepo(tmp.resolve("repo"))
                .workflow("ci.yaml", "image: " + ExecIT.IMAGE + "\nsteps:\n  - name: wait\n    run: |\n      echo started\n      sleep 600\n  - name: never\n    run: 'true'\n"
                        + "  - name: tidy\n    if: always()\n    run: echo tidied up\n");
        repo.commit();
        Path root = CliReferenceTest.reference().getParent().getParent().getParent();
        Process p = new ProcessBuilder(root.resolve("bin/knotless-run").toString(), "exec", repo.dir.toString(), "--json",
                "--state-dir", tmp.resolve("state").toString(), "--runner-id", runnerId, "--kill-grace", "2s")
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        CompletableFuture<String> stdout = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        StringBuilder err = new StringBuilder();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                err.append(line).append('\n');
                if (line.contains("wait │ started")) {
                    new ProcessBuilder("kill", "-INT", String.valueOf(p.pid())).start().waitFor();
                }
            }
        }
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(err.toString()).isTrue();
        assertThat(p.exitValue()).as(err.toString()).isEqualTo(1);
        JsonNode check = new ObjectMapper().readTree(stdout.get(10, TimeUnit.SECONDS).strip());
        assertThat(check.get("status").asText()).isEqualTo("cancelled");
        assertThat(check.get("reason").asText()).isEqualTo("cancelled by SIGINT");
        assertThat(check.get("steps").get(0).get("status").asText()).isEqualTo("cancelled");
        assertThat(check.get("steps").get(1).get("status").asText()).isEqualTo("skipped");
        // an always() step still runs after the cancel, to its end: the cancel does not stop it
        assertThat(check.get("steps").get(2).get("status").asText()).as(err.toString()).isEqualTo("success");
        assertThat(err.toString()).contains("tidy │ tidied up");
        assertThat(err.toString()).contains("cancelling (SIGINT)");
        assertThat(Docker.containersOf(runnerId)).isEmpty();
        assertThat(Files.exists(tmp.resolve("state/checks").resolve(check.get("id").asText() + ".json"))).isTrue();
    }
}
