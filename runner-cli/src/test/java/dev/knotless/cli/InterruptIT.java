package dev.knotless.cli;

import dev.knotless.testkit.TestRepo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C on the real launcher: the running step is stopped, the check says cancelled, an
 * {@code always()} step still runs, the exit status is 1 and no container is left. Runs {@code bin/knotless-run} as a separate process
 * (the package phase has built it) and sends it SIGINT as a terminal would.
 *
 * <p>A process started with SIGINT ignored keeps it ignored, and so does every process it
 * starts: Maven started as a script's background job hands that to this JVM and on to the
 * launcher, whose Ctrl-C handler the JVM then never installs. So the launcher runs under {@code
 * env --default-signal=INT}, as a terminal's foreground job would have it; the second test starts
 * it with SIGINT ignored on purpose.
 */
class InterruptIT {

    /** Ceiling for each wait: a step's first line comes within a second or two, a cancel within seconds. */
    private static final Duration CEILING = Duration.ofSeconds(120);

    @TempDir Path tmp;

    @Test
    void ctrlCCancelsTheRunningStepCleanly() throws Exception {
        String runnerId = "interrupt-it-" + UUID.randomUUID().toString().substring(0, 8);
        Cli cli = cancelledMidStep(runnerId, "--default-signal=INT", "INT", false);
        String err = cli.err();
        assertThat(cli.process.exitValue()).as(err).isEqualTo(1);
        JsonNode check = cli.check();
        assertThat(check.get("status").asText()).isEqualTo("cancelled");
        assertThat(check.get("reason").asText()).isEqualTo("cancelled by SIGINT");
        assertThat(check.get("steps").get(0).get("status").asText()).isEqualTo("cancelled");
        assertThat(check.get("steps").get(1).get("status").asText()).isEqualTo("skipped");
        // an always() step still runs after the cancel, to its end: the cancel does not stop it
        assertThat(check.get("steps").get(2).get("status").asText()).as(err).isEqualTo("success");
        assertThat(err).contains("tidy │ tidied up");
        assertThat(err).contains("cancelling (SIGINT)");
        assertThat(err).doesNotContain("was ignored when this process started");
        assertThat(Docker.containersOf(runnerId)).isEmpty();
        assertThat(Files.exists(tmp.resolve("state/checks").resolve(check.get("id").asText() + ".json"))).isTrue();
    }

    /**
     * Started with SIGINT ignored (as a script's background job is), the launcher cannot be
     * cancelled by Ctrl-C: it says so before the run's output, and SIGTERM still cancels.
     */
    @Test
    void startedWithSigintIgnoredItSaysCtrlCCannotCancelAndSigtermStillDoes() throws Exception {
        String runnerId = "interrupt-it-" + UUID.randomUUID().toString().substring(0, 8);
        Cli cli = cancelledMidStep(runnerId, "--ignore-signal=INT", "TERM", true);
        String err = cli.err();
        assertThat(cli.process.exitValue()).as(err).isEqualTo(1);
        JsonNode check = cli.check();
        assertThat(check.get("status").asText()).isEqualTo("cancelled");
        assertThat(check.get("reason").asText()).isEqualTo("cancelled by SIGTERM");
        assertThat(err).contains("cancelling (SIGTERM)");
        assertThat(Docker.containersOf(runnerId)).isEmpty();
    }

    /**
     * Starts the launcher under {@code env SIGNAL_FLAG}, waits for its step's first line, checks
     * whether it ignores SIGINT as {@code sigintIgnored} says (and, when it does, that it said so
     * before the run's output), sends it {@code signal} and waits for its exit.
     */
    private Cli cancelledMidStep(String runnerId, String signalFlag, String signal, boolean sigintIgnored) throws Exception {
        Cli cli = Cli.start(tmp, runnerId, signalFlag);
        try {
            cli.await("the step's first line", line -> line.contains("wait │ started"));
            assertThat(cli.ignores("INT")).as("the launcher's SIGINT ignored (env %s); stderr so far:%n%s", signalFlag, cli.err())
                    .isEqualTo(sigintIgnored);
            if (sigintIgnored) {
                assertThat(cli.err()).as("what the launcher said before its run's output")
                        .contains("SIGINT was ignored when this process started (as in a script's background job), "
                                + "so Ctrl-C cannot cancel; SIGTERM can");
            }
            new ProcessBuilder("kill", "-" + signal, String.valueOf(cli.process.pid())).start().waitFor();
            cli.awaitExit();
        } finally {
            cli.stop();
        }
        return cli;
    }

    /** The launcher running the test workflow, its stderr read line by line as it comes. */
    private static final class Cli {
        final Process process;
        private final CompletableFuture<String> stdout;
        private final List<String> lines = new ArrayList<>();
        private final long started = System.nanoTime();
        private boolean ended;

        private Cli(Process process) {
            this.process = process;
            this.stdout = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            Thread.ofVirtual().name("interrupt-it-stderr").start(this::readErr);
        }

        /** {@code env SIGNAL_OPTION bin/knotless-run exec …}: the option sets SIGINT's disposition for the launcher. */
        static Cli start(Path tmp, String runnerId, String signalOption) throws Exception {
            TestRepo repo = new TestRepo(tmp.resolve("repo"))
                    .workflow("ci.yaml", "image: " + ExecIT.IMAGE + "\nsteps:\n  - name: wait\n    run: |\n      echo started\n      sleep 600\n  - name: never\n    run: 'true'\n"
                            + "  - name: tidy\n    if: always()\n    run: echo tidied up\n");
            repo.commit();
            Path root = CliReferenceTest.reference().getParent().getParent().getParent();
            Process p = new ProcessBuilder("env", signalOption, root.resolve("bin/knotless-run").toString(), "exec",
                    repo.dir.toString(), "--json", "--state-dir", tmp.resolve("state").toString(), "--runner-id", runnerId,
                    "--kill-grace", "2s")
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            return new Cli(p);
        }

        private void readErr() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    synchronized (this) {
                        lines.add(String.format("%7.1fs %s", (System.nanoTime() - started) / 1e9, line));
                        notifyAll();
                    }
                }
            } catch (IOException e) {
                // the process is gone; its stderr ends here
            } finally {
                synchronized (this) {
                    ended = true;
                    notifyAll();
                }
            }
        }

        /** Waits for a line of stderr that {@code matches}; fails after {@link #CEILING} with what it saw. */
        synchronized void await(String what, Predicate<String> matches) throws InterruptedException {
            long deadline = System.nanoTime() + CEILING.toNanos();
            while (lines.stream().noneMatch(matches)) {
                long left = deadline - System.nanoTime();
                if (ended || left <= 0) {
                    throw new AssertionError("waited " + CEILING.toSeconds() + " s for " + what + (ended ? " until stderr ended" : "")
                            + "; stderr so far (seconds since the start):\n" + String.join("\n", lines));
                }
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
        }

        /** Waits for the launcher to exit; fails after {@link #CEILING} with what it printed. */
        void awaitExit() throws InterruptedException {
            if (!process.waitFor(CEILING.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError("the launcher was still running " + CEILING.toSeconds()
                        + " s after the signal; stderr so far (seconds since the start):\n" + err());
            }
            synchronized (this) {
                long deadline = System.nanoTime() + CEILING.toNanos();
                while (!ended && System.nanoTime() < deadline) {
                    wait(1000);
                }
            }
        }

        /** Whether {@code signal} (INT, TERM) is ignored in the launcher's process, from its {@code SigIgn}. */
        boolean ignores(String signal) throws IOException {
            int number = switch (signal) {
                case "INT" -> 2;
                case "TERM" -> 15;
                default -> throw new IllegalArgumentException(signal);
            };
            String mask = Files.readAllLines(Path.of("/proc", String.valueOf(process.pid()), "status")).stream()
                    .filter(l -> l.startsWith("SigIgn:")).findFirst().orElseThrow().substring("SigIgn:".length()).strip();
            return (Long.parseUnsignedLong(mask, 16) & (1L << (number - 1))) != 0;
        }

        synchronized String err() {
            return String.join("\n", lines);
        }

        JsonNode check() throws Exception {
            return new ObjectMapper().readTree(stdout.get(10, TimeUnit.SECONDS).strip());
        }

        /** After a failure: a clean cancel if it still runs (so its container goes), then KILL. */
        void stop() throws InterruptedException {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(CEILING.toSeconds(), TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor();
                }
            }
        }
    }
}
