package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.testkit.TestRepo;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code knotless-run exec} on the real Docker Engine with its state directory on a small tmpfs
 * that the test fills while a step prints: the run ends {@code error} "state directory full", its
 * check file says so (never {@code running}), and no temp file, partial output or space reserve
 * is left. Needs root to mount the tmpfs; skipped with one line elsewhere.
 */
class StateDirFullFaultIT {

    private static final String STATE_SIZE = "32m";

    @TempDir Path tmp;
    Path state;
    final String runnerId = "statefull-it-" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void mountASmallStateDirectory() throws Exception {
        state = tmp.resolve("state");
        Files.createDirectories(state);
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + STATE_SIZE, "tmpfs", state.toString())
                .redirectErrorStream(true).start();
        String said = new String(mount.getInputStream().readAllBytes()).strip();
        Assumptions.assumeTrue(mount.waitFor() == 0, "cannot mount a tmpfs for the state directory here (needs root): " + said);
    }

    @AfterEach
    void unmountAndNothingIsLeft() throws Exception {
        try {
            assertThat(Docker.containersOf(runnerId)).as("containers left by runner " + runnerId).isEmpty();
        } finally {
            new ProcessBuilder("umount", "-l", state.toString()).inheritIO().start().waitFor();
        }
    }

    @Test
    void aStateDirectoryFilledMidRunEndsTheRunAsAnErrorWithOneClearReason() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                steps:
                  - name: print
                    run: |
                      head -c 65536 /dev/zero > "$KNOTLESS_RUN_OUTPUTS/report.bin"
                      i=0
                      while [ $i -lt 600 ]; do echo "line $i of a step that prints for a minute"; i=$((i+1)); sleep 0.1; done
                  - name: after
                    run: 'true'
                """.formatted(ExecIT.IMAGE));
        repo.commit();
        CompletableFuture<CliRun> run = execInBackground(repo);

        Path log = awaitLogWith("line 30 of");
        long filled = System.nanoTime();
        fill(state.resolve("filler"));
        CliRun r = run.get(120, TimeUnit.SECONDS);
        Duration recorded = Duration.ofNanos(System.nanoTime() - filled);

        assertThat(r.exit()).as(r.err()).isEqualTo(3);
        JsonNode check = r.checks().getFirst();
        assertThat(check.get("status").asText()).isEqualTo("error");
        assertThat(check.get("reason").asText()).isEqualTo("state directory full");
        assertThat(check.get("steps").get(0).get("status").asText()).isEqualTo("error");
        assertThat(check.get("steps").get(0).get("reason").asText()).isEqualTo("state directory full");
        assertThat(check.get("steps").get(1).get("status").asText()).isEqualTo("skipped");
        assertThat(r.err()).contains("state directory full").doesNotContain("Exception").doesNotContain("\tat ");
        String id = check.get("id").asText();
        JsonNode onDisk = new ObjectMapper().readTree(Files.readAllBytes(state.resolve("checks/" + id + ".json")));
        assertThat(onDisk.get("status").asText()).as("the check file, recorded while the disk was still full").isEqualTo("error");
        assertThat(onDisk.get("reason").asText()).isEqualTo("state directory full");
        assertThat(Files.readString(log)).contains("line 30 of");
        assertThat(leftovers()).as("temp files, space reserves and partial outputs left in the state directory").isEmpty();
        assertThat(Files.exists(state.resolve("filler"))).as("the disk was full until the end").isTrue();
        System.out.printf("state directory full: the check was final %d ms after the disk was filled%n", recorded.toMillis());
    }

    /** Without its reserve (taken by something else meanwhile), the run records its end once space comes back. */
    @Test
    void withoutItsReserveTheRunRecordsItsEndWhenSpaceComesBack() throws Exception {
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                steps:
                  - name: print
                    run: |
                      pad=$(printf '%%0900d' 0)
                      i=0
                      while [ $i -lt 600 ]; do echo "line $i of a step that prints for a minute $pad"; i=$((i+1)); sleep 0.1; done
                """.formatted(ExecIT.IMAGE));
        repo.commit();
        CompletableFuture<CliRun> run = execInBackground(repo);
        Path log = awaitLogWith("line 30 of");
        try (Stream<Path> reserves = Files.list(state.resolve("checks"))) {
            for (Path r : reserves.filter(p -> p.getFileName().toString().endsWith(".reserve")).toList()) {
                Files.delete(r);
            }
        }
        fill(state.resolve("filler"));
        // Lines of ~1 KiB fill the log's last page within a second; then the log stops growing. A
        // fixed wait was not enough on a loaded machine: the step had not yet met the full disk
        // when space came back, and printed on to its end.
        awaitNoGrowth(log, Duration.ofSeconds(3), Duration.ofSeconds(60));
        assertThat(run.isDone()).as("the run waits for space to record its end").isFalse();

        long spaceBack = System.nanoTime();
        Files.delete(state.resolve("filler"));
        // It tries again every second: 60 s only catch a run that no longer tries (the time is printed).
        CliRun r;
        try {
            r = run.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the run did not record its end within 60 s of space coming back", e);
        }
        Duration recorded = Duration.ofNanos(System.nanoTime() - spaceBack);

        JsonNode check = r.checks().getFirst();
        assertThat(check.get("status").asText()).as(r.err()).isEqualTo("error");
        assertThat(check.get("reason").asText()).isEqualTo("state directory full");
        JsonNode onDisk = new ObjectMapper().readTree(Files.readAllBytes(state.resolve("checks/" + check.get("id").asText() + ".json")));
        assertThat(onDisk.get("reason").asText()).isEqualTo("state directory full");
        assertThat(leftovers()).as("temp files, space reserves and partial outputs left in the state directory").isEmpty();
        System.out.printf("space came back: the check was final %d ms later%n", recorded.toMillis());
    }

    private CompletableFuture<CliRun> execInBackground(TestRepo repo) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return CliRun.exec(state, runnerId, repo.dir);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private Path awaitLogWith(String text) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < until) {
            Path logs = state.resolve("logs");
            if (Files.isDirectory(logs)) {
                try (Stream<Path> files = Files.list(logs)) {
                    for (Path f : files.toList()) {
                        if (Files.readString(f).contains(text)) {
                            return f;
                        }
                    }
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no log with '" + text + "' in " + state + " within 90 s; the logs' last lines:\n"
                + DockerEngineRestartFaultIT.lastLines(state.resolve("logs")));
    }

    /** Waits until {@code file} has not grown for {@code still}; fails after {@code atMost}. */
    private static void awaitNoGrowth(Path file, Duration still, Duration atMost) throws Exception {
        long until = System.nanoTime() + atMost.toNanos();
        long size = Files.size(file);
        long since = System.nanoTime();
        while (System.nanoTime() - since < still.toNanos()) {
            if (System.nanoTime() > until) {
                throw new AssertionError(file + " still grows " + atMost + " after the disk was filled");
            }
            Thread.sleep(100);
            long now = Files.size(file);
            if (now != size) {
                size = now;
                since = System.nanoTime();
            }
        }
    }

    /** Writes {@code file} until the file system has no space left. */
    private static void fill(Path file) throws IOException {
        byte[] block = new byte[1 << 16];
        try (OutputStream out = Files.newOutputStream(file)) {
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            assertThat(full.getMessage()).contains("No space left on device");
        }
    }

    private List<Path> leftovers() throws IOException {
        try (Stream<Path> all = Files.walk(state)) {
            return all.filter(p -> {
                String name = p.getFileName().toString();
                return name.endsWith(".tmp") || name.endsWith(".reserve")
                        || p.startsWith(state.resolve("outputs")) && Files.isRegularFile(p);
            }).toList();
        }
    }
}
