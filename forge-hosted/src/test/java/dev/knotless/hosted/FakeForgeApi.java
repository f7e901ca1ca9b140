package dev.knotless.hosted;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A local HTTP server standing in for the hosted forges' APIs (api.github.com, a Gitea, a GitLab):
 * it records each request (method, raw path, headers, body) and answers with the codes it is given
 * in turn, then 201, and the bodies it is given in turn, then {@code {}}.
 */
final class FakeForgeApi implements AutoCloseable {

    record Recorded(String method, String rawPath, Map<String, List<String>> headers, String body) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).map(e -> e.getValue().get(0))
                    .findFirst().orElse(null);
        }
    }

    final List<Recorded> requests = new CopyOnWriteArrayList<>();
    final ConcurrentLinkedQueue<Integer> answers = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<String> bodies = new ConcurrentLinkedQueue<>();
    private final HttpServer server;

    FakeForgeApi() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            requests.add(new Recorded(exchange.getRequestMethod(), exchange.getRequestURI().getRawPath(),
                    Map.copyOf(exchange.getRequestHeaders()), body));
            Integer code = answers.poll();
            String answer = bodies.poll();
            byte[] out = (answer == null ? "{}" : answer).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(code == null ? 201 : code, out.length);
            exchange.getResponseBody().write(out);
            exchange.close();
        });
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
