package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.testkit.TestRepo;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node joined by token, every piece its own process as a user runs them: {@code daemon
 * --executor node} with no node in its nodes file, {@code node token} beside it, {@code
 * bin/knotless-run node enroll} on the node (a reused and an expired token refused with one line on
 * both sides), then {@code bin/knotless-run node} with nothing but its state directory, which the
 * running daemon accepts without a restart ({@code node list}). A workflow then runs on the node
 * through {@code exec}. Needs what {@link NodeRig} needs.
 */
class NodeEnrollIT {

    @TempDir static Path dir;
    static NodeRig rig;
    static DaemonProcess daemon;
    static final List<String> tokens = new ArrayList<>();

    record Launched(int exit, String out, String err) {}

    @BeforeAll
    static void enrolANode() throws Exception {
        Path runnerState = dir.resolve("runner-state");
        rig = new NodeRig(dir, new NodeRig.Join() {
            @Override
            public void enrol(NodeRig r) throws Exception {
                daemon = DaemonProcess.start(DaemonProcess.checkout(), dir.resolve("daemon.log"), List.of("--discover",
                        "--runner-id", "node-enroll-it", "--executor", "node",
                        "--node-listen", "127.0.0.1:" + r.listen, "--nodes", r.nodesFile().toString(),
                        "--node-key", r.runnerKey().toString(), "--state-dir", runnerState.toString()));
                daemon.await("it listens for nodes", DaemonProcess.STARTS, () -> listening(r.listen));
                String server = "127.0.0.1:" + r.listen;
                String token = token(r, runnerState, "10m");
                String expiring = token(r, runnerState, "1s");

                long started = System.nanoTime();
                Launched enrolled = launch("node", "enroll", "--server", server, "--token", token, "--node-id", "node-a",
                        "--state-dir", r.nodeState().toString());
                System.out.println("node enroll as a process (JVM start, key, TLS, token, both files): "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms");
                assertThat(enrolled.exit()).as(enrolled.err()).isZero();
                assertThat(enrolled.out()).startsWith("enrolled node-a with the runner at " + server);

                Launched reused = launch("node", "enroll", "--server", server, "--token", token, "--node-id", "node-b",
                        "--state-dir", dir.resolve("node-b").toString());
                assertThat(reused.exit()).isEqualTo(ExitCodes.FAILURE);
                assertThat(reused.err().strip()).isEqualTo("node enroll: the runner refused the enrolment: the enrolment token was already used");

                Thread.sleep(2_100);
                Launched expired = launch("node", "enroll", "--server", server, "--token", expiring, "--node-id", "node-c",
                        "--state-dir", dir.resolve("node-c").toString());
                assertThat(expired.exit()).isEqualTo(ExitCodes.FAILURE);
                assertThat(expired.err().strip()).startsWith("node enroll: the runner refused the enrolment: the enrolment token expired at")
                        .doesNotContain("\n");
                daemon.await("both refusals are logged", Duration.ofSeconds(10),
                        () -> daemon.log().contains("already used") && daemon.log().contains("expired at"));
            }

            @Override
            public void started(NodeRig r) throws Exception {
                daemon.await("the enrolled node is connected (node list)", Duration.ofSeconds(60), () -> connected(r, runnerState));
            }
        });
    }

    @AfterAll
    static void stop() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
        if (rig != null) {
            rig.close();
        }
    }

    @Test
    void theDaemonNeverLogsATokenAndKeepsOnlyHashes() throws Exception {
        String log = daemon.log();
        String store = Files.readString(dir.resolve("runner-state").resolve(dev.knotless.executor.node.EnrolmentTokens.FILE_NAME));
        assertThat(log).contains("node enrolled node=node-a");
        for (String token : tokens) {
            String secret = token.split("\\.")[2];
            assertThat(log).doesNotContain(secret);
            assertThat(store).doesNotContain(secret);
        }
        assertThat(Files.readString(rig.nodesFile())).startsWith("node-a ");
    }

    @Test
    void aWorkflowRunsOnTheEnrolledNode(@TempDir Path tmp) throws Exception {
        // The one-shot runner takes the daemon's place on the port; the node dials it as it dialled the daemon.
        daemon.stop(Duration.ofSeconds(60));
        TestRepo repo = new TestRepo(tmp.resolve("repo")).workflow("ci.yaml", """
                image: %s
                steps:
                  - run: echo "enrolled and running on $(hostname)"
                """.formatted(rig.image));
        repo.commit();

        CliRun r = CliRun.exec(dir.resolve("exec-state"), "node-enroll-it", repo.dir, rig.runnerArgs().toArray(String[]::new));

        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode check = r.checks().get(0);
        assertThat(check.get("status").asText()).isEqualTo("success");
        assertThat(Files.readString(Path.of(check.get("log").asText()))).contains("enrolled and running on kn-");
    }

    private static String token(NodeRig r, Path runnerState, String ttl) {
        String token = NodeRig.cli("node", "token", "--ttl", ttl, "--node-key", r.runnerKey().toString(),
                "--state-dir", runnerState.toString()).strip();
        tokens.add(token);
        return token;
    }

    private static boolean connected(NodeRig r, Path runnerState) {
        try {
            JsonNode rows = new ObjectMapper().readTree(NodeRig.cli("node", "list", "--json", "--nodes", r.nodesFile().toString(),
                    "--state-dir", runnerState.toString()));
            return rows.size() == 1 && rows.get(0).get("node").asText().equals("node-a") && rows.get(0).get("connected").asBoolean(false);
        } catch (Exception e) {
            return false;
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** {@code bin/knotless-run} with {@code args}, as its own process. */
    static Launched launch(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(DaemonProcess.checkout().resolve("bin/knotless-run").toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        return new Launched(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
