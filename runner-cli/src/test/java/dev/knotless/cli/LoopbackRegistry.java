package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real registry (Debian's {@code docker-registry}) on loopback, which images are pushed to by
 * Docker as a user pushes them: what the executors pull from (Docker and the test cluster's
 * kubelet on this host, a node agent on loopback), and what the runner pins images against.
 */
final class LoopbackRegistry implements AutoCloseable {

    private final Process process;
    private final int port;
    /** Every tag pushed, removed from the engine again by {@link #close}. */
    private final List<String> tags = new ArrayList<>();

    LoopbackRegistry(Path dir) throws Exception {
        Path binary = Path.of("/usr/bin/docker-registry");
        assumeTrue(Files.isExecutable(binary), () -> "skipped: " + binary + " is missing (scripts/test installs it)");
        Files.createDirectories(dir);
        port = freePort();
        Files.writeString(dir.resolve("registry.yml"), String.join("\n", "version: 0.1", "log:", "  level: warn", "storage:",
                "  filesystem:", "    rootdirectory: " + dir.resolve("registry"), "http:", "  addr: 127.0.0.1:" + port, ""));
        process = new ProcessBuilder(binary.toString(), "serve", dir.resolve("registry.yml").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("registry.log").toFile()).start();
    }

    /** A new tag in this registry for an image named {@code name}: {@code 127.0.0.1:PORT/knotless-cli/NAME:HEX}. */
    String tagFor(String name) {
        return "127.0.0.1:" + port + "/knotless-cli/" + name + ":" + HexFormat.of().formatHex(random(4));
    }

    /** Tags {@code local}, an image of the engine, {@code as} and pushes it; returns its digest ({@code sha256:...}). */
    String push(String local, String as) throws Exception {
        run("docker", "tag", local, as);
        tags.add(as);
        String pushed = "";
        // the registry may still be starting: pushed again until it answers
        for (int attempt = 0; attempt < 50 && !pushed.contains("digest: "); attempt++) {
            Thread.sleep(100);
            pushed = run("docker", "push", as);
        }
        Matcher digest = Pattern.compile("digest: (sha256:[0-9a-f]{64})").matcher(pushed);
        assertThat(digest.find()).as(pushed).isTrue();
        return digest.group(1);
    }

    /** {@code local} pushed under a new tag of this registry's: that tag. */
    String pushed(String local) throws Exception {
        String as = tagFor(local.substring(local.indexOf('/') + 1).replaceAll("[:]", "-"));
        push(local, as);
        return as;
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
        for (String t : tags) {
            run("docker", "rmi", t);
        }
    }

    /** Runs {@code command}; returns what it printed (stdout and stderr), whatever its exit. */
    static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(Duration.ofMinutes(2).toSeconds(), TimeUnit.SECONDS);
        return out;
    }

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static byte[] random(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }
}
