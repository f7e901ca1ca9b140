package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

/**
 * A real OCI registry (Debian's {@code docker-registry}, installed by {@code scripts/test}) on a
 * free port of loopback (or of an address given, for agents in network namespaces of their own,
 * whose loopback is not this one), storing under a temp directory: open, with htpasswd users, or
 * with token auth against a given realm and certificate.
 */
public final class LocalRegistry implements AutoCloseable {

    private static final String BINARY = "/usr/bin/docker-registry";

    private final Process process;
    private final InetAddress address;
    private final int port;
    private final Path storage;

    private LocalRegistry(Process process, InetAddress address, int port, Path storage) {
        this.process = process;
        this.address = address;
        this.port = port;
        this.storage = storage;
    }

    static LocalRegistry open(Path dir) throws IOException, InterruptedException {
        return open(dir, InetAddress.getLoopbackAddress());
    }

    /** Open, listening on {@code address} (IPv4) only. */
    static LocalRegistry open(Path dir, InetAddress address) throws IOException, InterruptedException {
        return start(dir, List.of(), address);
    }

    /** Users are {@code name -> password}; anonymous requests get a Basic challenge. */
    static LocalRegistry withUser(Path dir, String user, String password) throws IOException, InterruptedException {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        Path htpasswd = dir.resolve("htpasswd");
        Files.writeString(htpasswd, user + ":" + OpenBSDBCrypt.generate("2b", password.toCharArray(), salt, 6) + "\n");
        return start(dir, List.of(
                "auth:",
                "  htpasswd:",
                "    realm: knotless-test",
                "    path: " + htpasswd));
    }

    /** Bearer tokens from {@code realm}, signed by the key of {@code certificate} (PEM). */
    static LocalRegistry withTokens(Path dir, String realm, String service, Path certificate)
            throws IOException, InterruptedException {
        return start(dir, List.of(
                "auth:",
                "  token:",
                "    realm: " + realm,
                "    service: " + service,
                "    issuer: knotless-test-issuer",
                "    rootcertbundle: " + certificate));
    }

    private static LocalRegistry start(Path dir, List<String> auth) throws IOException, InterruptedException {
        return start(dir, auth, InetAddress.getLoopbackAddress());
    }

    private static LocalRegistry start(Path dir, List<String> auth, InetAddress address) throws IOException, InterruptedException {
        if (!Files.isExecutable(Path.of(BINARY))) {
            throw new IllegalStateException(BINARY + " is missing: scripts/test installs Debian's docker-registry");
        }
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, address)) {
            port = s.getLocalPort();
        }
        Path storage = dir.resolve("data");
        List<String> config = new ArrayList<>(List.of(
                "version: 0.1",
                "log:",
                "  level: warn",
                "storage:",
                "  filesystem:",
                "    rootdirectory: " + storage,
                "  delete:",
                "    enabled: true",
                "http:",
                "  addr: " + address.getHostAddress() + ":" + port));
        config.addAll(auth);
        config.add("");
        Path file = dir.resolve("config.yml");
        Files.writeString(file, String.join("\n", config), StandardCharsets.UTF_8);
        Path log = dir.resolve("registry.log");
        Process p = new ProcessBuilder(BINARY, "serve", file.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        LocalRegistry registry = new LocalRegistry(p, address, port, storage);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            try (Socket ignored = new Socket(address, port)) {
                return registry;
            } catch (IOException notYet) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    registry.close();
                    throw new IllegalStateException("the registry did not start: " + Files.readString(log));
                }
                Thread.sleep(100);
            }
        }
    }

    Path storage() {
        return storage;
    }

    /** {@code ADDRESS:PORT}, e.g. {@code 127.0.0.1:5000}: how image references name it. */
    String host() {
        return address.getHostAddress() + ":" + port;
    }

    /** Where the registry keeps a blob's bytes. */
    Path blobData(Digest digest) {
        return storage.resolve("docker/registry/v2/blobs/sha256").resolve(digest.hex().substring(0, 2))
                .resolve(digest.hex()).resolve("data");
    }

    /** Where the registry records that {@code repository} has manifest {@code digest}. */
    Path manifestLink(String repository, Digest digest) {
        return storage.resolve("docker/registry/v2/repositories").resolve(repository)
                .resolve("_manifests/revisions/sha256").resolve(digest.hex()).resolve("link");
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
