package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A Kubernetes run for a cluster fault test: a first step, one that ticks for a minute, a last step; and what its check and log must show. */
final class ClusterFaultRun {

    static final int TICKS = 600;

    private ClusterFaultRun() {}

    static TestRepo repo(Path dir) throws Exception {
        TestRepo repo = new TestRepo(dir).workflow("ci.yaml", """
                image: %s
                steps:
                  - name: first
                    run: echo first-step-ran
                  - name: count
                    run: |
                      i=0
                      while [ $i -lt %d ]; do echo "tick $i"; i=$((i+1)); sleep 0.1; done
                  - name: last
                    run: echo last-step-ran
                """.formatted(ExecIT.IMAGE, TICKS));
        repo.commit();
        return repo;
    }

    /** {@code knotless-run exec} on the test cluster with the namespace's scoped kubeconfig, in the background. */
    static CompletableFuture<CliRun> exec(ClusterNamespace namespace, Path state, String runnerId, Path repo, String... extra) {
        List<String> args = new ArrayList<>(List.of("--executor", "kubernetes", "--kubeconfig", namespace.scoped().toString(),
                "--namespace", namespace.name, "--pending-timeout", "60s"));
        args.addAll(ClusterNamespace.UNENFORCED_POLICY_ACCEPTED);
        args.addAll(List.of(extra));
        return CompletableFuture.supplyAsync(() -> {
            try {
                return CliRun.exec(state, runnerId, repo, args.toArray(String[]::new));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** The run passed: every step, the ticking one with its own exit code 0, and its log whole. */
    static void passedWhole(CliRun r) throws Exception {
        assertThat(r.checks()).as(r.err()).hasSize(1);
        JsonNode check = r.checks().getFirst();
        assertThat(check.get("status").asText()).as(check.toString()).isEqualTo("success");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode steps = check.get("steps");
        assertThat(steps).hasSize(3);
        for (JsonNode step : steps) {
            assertThat(step.get("status").asText()).as(step.toString()).isEqualTo("success");
        }
        assertThat(steps.get(1).get("exitCode").asInt()).isZero();
        String log = Files.readString(Path.of(check.get("log").asText()));
        assertThat(log.lines().filter(l -> l.equals("first-step-ran"))).hasSize(1);
        assertThat(log.lines().filter(l -> l.equals("last-step-ran"))).hasSize(1);
        List<String> ticks = log.lines().filter(l -> l.startsWith("tick ")).toList();
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < TICKS; i++) {
            expected.add("tick " + i);
        }
        assertThat(ticks).as("the ticking step's output: every line once, in order").isEqualTo(expected);
        assertThat(ClusterNamespace.refusals(r.err())).isEmpty();
    }
}
