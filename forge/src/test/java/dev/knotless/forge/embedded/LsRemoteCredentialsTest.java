package dev.knotless.forge.embedded;

import dev.knotless.forge.Repository;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real git against an HTTP server on loopback that wants Basic credentials (git's dumb HTTP
 * protocol: {@code info/refs} as text). While git waits for the answer, the server reads every
 * process's command line, as {@code ps} shows it to any user: the password is in none of them,
 * and git still authenticates with it.
 */
class LsRemoteCredentialsTest {

    private static final String SHA = "0123456789abcdef0123456789abcdef01234567";
    private static final String PASSWORD = "s3cret-token-" + Long.toHexString(System.nanoTime());

    @TempDir
    Path dir;
    HttpServer server;
    final List<String> authorizations = new CopyOnWriteArrayList<>();
    final List<String> cmdlinesWithThePassword = new CopyOnWriteArrayList<>();

    @BeforeEach
    void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/acme/web.git/info/refs", exchange -> {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            cmdlinesWithThePassword.addAll(commandLinesHolding(PASSWORD));
            if (auth == null) {
                exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"test\"");
                exchange.sendResponseHeaders(401, -1);
            } else {
                authorizations.add(auth);
                byte[] body = (SHA + "\trefs/heads/main\n").getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "text/plain");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
            }
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void theCredentialsReachTheServerButNoProcessesArguments() throws Exception {
        String url = "http://ci-bot:" + PASSWORD + "@127.0.0.1:" + server.getAddress().getPort() + "/acme/web.git";
        Repository repo = new Repository("acme/web", url, "main", List.of("r1"), List.of());

        Map<String, String> refs = LsRemote.refs(repo, dir, Duration.ofSeconds(30));

        assertThat(refs).containsEntry("refs/heads/main", SHA);
        assertThat(authorizations).contains("Basic "
                + Base64.getEncoder().encodeToString(("ci-bot:" + PASSWORD).getBytes(StandardCharsets.UTF_8)));
        assertThat(cmdlinesWithThePassword).as("command lines that held the password").isEmpty();
    }

    @Test
    void aTokenGivenAsTheUserNameIsSentWithAnEmptyPassword() throws Exception {
        String url = "http://" + PASSWORD + "@127.0.0.1:" + server.getAddress().getPort() + "/acme/web.git";
        LsRemote.refs(new Repository("acme/web", url, "main", List.of("r1"), List.of()), dir, Duration.ofSeconds(30));
        assertThat(authorizations).contains("Basic "
                + Base64.getEncoder().encodeToString((PASSWORD + ":").getBytes(StandardCharsets.UTF_8)));
        assertThat(cmdlinesWithThePassword).isEmpty();
    }

    /** The command lines of every process on the machine that hold {@code text}. */
    private static List<String> commandLinesHolding(String text) {
        List<String> found = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
                    if (cmdline.contains(text) && !cmdline.contains("surefire")) {
                        found.add(p.getFileName() + ": " + cmdline);
                    }
                } catch (IOException gone) {
                    // the process ended meanwhile
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return found;
    }
}
