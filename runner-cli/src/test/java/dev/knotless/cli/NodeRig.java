package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.knotless.testkit.TestImages;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine;

/**
 * A node set up as a user sets one up: keys from {@code node keygen}, a nodes file and a keyset,
 * {@code bin/knotless-run node} as its own process dialling the runner on loopback, and the
 * project's test image pushed by Docker to a real registry on loopback and used by digest. Needs
 * root, runc, the CNI plugins, docker-registry and Docker (scripts/test installs them); the
 * constructor skips the test (an assumption) where they are missing.
 */
final class NodeRig implements AutoCloseable {

    final Path dir;
    final String image;
    final int listen;
    final String tag;
    private final Path nodes;
    private final Path runnerKey;
    private final String bridge;
    private final LoopbackRegistry registry;
    private final Process node;

    NodeRig(Path dir) throws Exception {
        this(dir, Join.BY_HAND);
    }

    NodeRig(Path dir, Join join) throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "skipped: the node agent needs root");
        for (String binary : List.of("/usr/sbin/runc", "/usr/lib/cni/bridge")) {
            assumeTrue(Files.isExecutable(Path.of(binary)), () -> "skipped: " + binary + " is missing (scripts/test installs it)");
        }
        this.dir = dir;
        registry = new LoopbackRegistry(dir);
        tag = registry.tagFor("test");
        image = pushed(TestImages.ensureBuilt(), tag);

        String runnerKeyId = cli("node", "keygen", "--out", dir.resolve("runner").toString()).strip();
        runnerKey = dir.resolve("runner.key");
        nodes = dir.resolve("nodes.txt");
        listen = LoopbackRegistry.freePort();
        List<String> trust;
        if (join == Join.BY_HAND) {
            cli("node", "keygen", "--out", dir.resolve("node-a").toString());
            Files.writeString(nodes, "node-a " + Files.readString(dir.resolve("node-a.pub")).strip() + "\n");
            Path keyset = Files.writeString(dir.resolve("keyset"),
                    runnerKeyId + " " + Files.readString(dir.resolve("runner.pub")).strip() + "\n");
            trust = List.of("--identity-key", dir.resolve("node-a.key").toString(), "--keyset", keyset.toString());
        } else {
            join.enrol(this);
            trust = List.of(); // the agent finds what enrolment wrote in its --state-dir
        }
        String subnet = "10." + ThreadLocalRandom.current().nextInt(213, 251) + "." + ThreadLocalRandom.current().nextInt(0, 256) + ".0/24";
        bridge = "kncli" + HexFormat.of().formatHex(LoopbackRegistry.random(2));
        List<String> command = new ArrayList<>(List.of(DaemonProcess.checkout().resolve("bin/knotless-run").toString(), "node",
                "--node-id", "node-a", "--server", "127.0.0.1:" + listen));
        command.addAll(trust);
        command.addAll(List.of("--state-dir", dir.resolve("node-state").toString(),
                "--cni-bin", "/usr/lib/cni", "--subnet", subnet, "--bridge", bridge));
        node = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("node.log").toFile()).start();
        join.started(this);
    }

    /**
     * How the node joins the runner: keys copied by hand (the nodes file and a keyset written by the
     * rig), or a one-time token whose {@code enrol} runs {@code node enroll} against a runner of its
     * own before the agent starts, and whose {@code started} may check the agent once it runs.
     */
    interface Join {
        Join BY_HAND = new Join() {};

        default void enrol(NodeRig rig) throws Exception {}

        default void started(NodeRig rig) throws Exception {}
    }

    /** {@code local}, a local image, pushed to the rig's registry: its name there, by digest (a node takes no other). */
    String pushed(String local) throws Exception {
        return pushed(local, registry.tagFor(local.substring(local.indexOf('/') + 1).replace(":", "-")));
    }

    private String pushed(String local, String as) throws Exception {
        return as.substring(0, as.lastIndexOf(':')) + "@" + registry.push(local, as);
    }

    Path runnerKey() {
        return runnerKey;
    }

    Path nodesFile() {
        return nodes;
    }

    Path nodeState() {
        return dir.resolve("node-state");
    }

    /** The runner's flags that reach this node. */
    List<String> runnerArgs() {
        return new ArrayList<>(List.of("--executor", "node", "--node-listen", "127.0.0.1:" + listen,
                "--nodes", nodes.toString(), "--node-key", runnerKey.toString(), "--node-wait", "60s"));
    }

    Path log() {
        return dir.resolve("node.log");
    }

    /** The allocations the node still keeps on disk. */
    List<Path> allocations() throws Exception {
        try (Stream<Path> left = Files.list(dir.resolve("node-state").resolve("allocations"))) {
            return left.toList();
        }
    }

    @Override
    public void close() throws Exception {
        node.destroy();
        node.waitFor(10, TimeUnit.SECONDS);
        String log = Files.readString(log());
        LoopbackRegistry.run("ip", "link", "del", bridge);
        // The node's images and allocations are root's files with links out of the tree; removed here, quietly.
        LoopbackRegistry.run("rm", "-rf", dir.resolve("node-state").toString());
        System.out.println("node log (tail): " + log.substring(Math.max(0, log.length() - 3000)));
        registry.close();
    }

    static String cli(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(new StringWriter(), true));
        assertThat(cli.execute(args)).isZero();
        return out.toString();
    }
}
