package dev.knotless.executor.kubernetes;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

/**
 * A real OCI registry (Debian's {@code docker-registry}, installed by {@code scripts/test}) on a
 * free loopback port, with htpasswd authentication and a password nobody is told: every pull
 * from it is denied. Docker treats 127.0.0.0/8 registries as insecure (plain HTTP) by default,
 * so the kubelet's Docker Engine asks it directly.
 */
final class AuthRegistry implements AutoCloseable {

    private static final String BINARY = "/usr/bin/docker-registry";

    private final Process process;
    private final int port;

    private AuthRegistry(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static AuthRegistry start(Path dir) throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of(BINARY))) {
            throw new IllegalStateException(BINARY + " is missing: scripts/test installs Debian's docker-registry");
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        byte[] password = new byte[16];
        SecureRandom random = new SecureRandom();
        random.nextBytes(password);
        byte[] salt = new byte[16];
        random.nextBytes(salt);
        Path htpasswd = dir.resolve("htpasswd");
        Files.writeString(htpasswd, "knotless:" + OpenBSDBCrypt.generate("2b",
                HexFormat.of().formatHex(password).toCharArray(), salt, 6) + "\n");
        Path config = dir.resolve("config.yml");
        Files.writeString(config, String.join("\n",
                "version: 0.1",
                "log:",
                "  level: warn",
                "storage:",
                "  filesystem:",
                "    rootdirectory: " + dir.resolve("data"),
                "http:",
                "  addr: 127.0.0.1:" + port,
                "auth:",
                "  htpasswd:",
                "    realm: knotless-test",
                "    path: " + htpasswd,
                ""), StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(BINARY, "serve", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("registry.log").toFile())
                .start();
        AuthRegistry registry = new AuthRegistry(p, port);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return registry;
            } catch (IOException notYet) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    registry.close();
                    throw new IllegalStateException("the registry did not start: " + Files.readString(dir.resolve("registry.log")));
                }
                Thread.sleep(100);
            }
        }
    }

    /** {@code 127.0.0.1:PORT/NAME}. */
    String image(String name) {
        return "127.0.0.1:" + port + "/" + name;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
