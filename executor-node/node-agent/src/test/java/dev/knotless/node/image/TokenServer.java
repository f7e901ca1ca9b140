package dev.knotless.node.image;

import dev.knotless.registry.Credentials;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.time.Instant;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A token realm for the registry's {@code token} auth: checks one Basic user and issues ES256 JWTs
 * with the requested repository scope, signed by a self-signed key (made by {@code keytool}) whose
 * certificate the registry trusts. It is the issuer's half of the real protocol, so the registry
 * itself verifies every token.
 */
final class TokenServer implements AutoCloseable {

    static final String ISSUER = "knotless-test-issuer";

    private final HttpServer server;
    private final PrivateKey key;
    private final Certificate certificate;
    final List<String> authorizations = new CopyOnWriteArrayList<>();

    private TokenServer(HttpServer server, PrivateKey key, Certificate certificate) {
        this.server = server;
        this.key = key;
        this.certificate = certificate;
    }

    /** Starts on loopback; writes the certificate the registry must trust to {@code dir/token.pem}. */
    static TokenServer start(Path dir, String user, String password) throws Exception {
        Path keystore = dir.resolve("token.p12");
        Process keytool = new ProcessBuilder("keytool", "-genkeypair", "-alias", "token", "-keyalg", "EC",
                "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA", "-dname", "CN=knotless-token",
                "-ext", "bc:c", "-validity", "2", "-keystore", keystore.toString(), "-storetype", "PKCS12",
                "-storepass", "changeit").redirectErrorStream(true).start();
        String out = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
            throw new IllegalStateException("keytool failed: " + out);
        }
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(keystore)) {
            store.load(in, "changeit".toCharArray());
        }
        PrivateKey key = (PrivateKey) store.getKey("token", "changeit".toCharArray());
        Certificate certificate = store.getCertificate("token");
        Files.writeString(dir.resolve("token.pem"), "-----BEGIN CERTIFICATE-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(certificate.getEncoded())
                + "\n-----END CERTIFICATE-----\n");

        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        TokenServer tokens = new TokenServer(server, key, certificate);
        String expected = okhttp3.Credentials.basic(user, password);
        server.createContext("/token", exchange -> {
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            tokens.authorizations.add(String.valueOf(authorization));
            byte[] body;
            int status;
            if (!expected.equals(authorization)) {
                status = 401;
                body = "{\"errors\":[{\"code\":\"UNAUTHORIZED\"}]}".getBytes(StandardCharsets.UTF_8);
            } else {
                Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
                status = 200;
                body = ("{\"token\":\"" + tokens.token(user, query.get("service"), query.get("scope")) + "\"}")
                        .getBytes(StandardCharsets.UTF_8);
            }
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream o = exchange.getResponseBody()) {
                o.write(body);
            }
        });
        server.start();
        return tokens;
    }

    String realm() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/token";
    }

    /** A signed token granting {@code scope} ({@code repository:NAME:ACTIONS}). */
    String token(String subject, String service, String scope) {
        try {
            String[] parts = scope.split(":");
            ObjectNode header = Pusher.JSON.createObjectNode().put("alg", "ES256").put("typ", "JWT");
            header.putArray("x5c").add(Base64.getEncoder().encodeToString(certificate.getEncoded()));
            long now = Instant.now().getEpochSecond();
            ObjectNode claims = Pusher.JSON.createObjectNode().put("iss", ISSUER).put("sub", subject)
                    .put("aud", service).put("exp", now + 300).put("nbf", now - 10).put("iat", now)
                    .put("jti", UUID.randomUUID().toString());
            ObjectNode access = claims.putArray("access").addObject().put("type", parts[0]).put("name", parts[1]);
            for (String action : parts[2].split(",")) {
                access.withArray("actions").add(action);
            }
            Base64.Encoder url = Base64.getUrlEncoder().withoutPadding();
            String signingInput = url.encodeToString(Pusher.JSON.writeValueAsBytes(header)) + "."
                    + url.encodeToString(Pusher.JSON.writeValueAsBytes(claims));
            Signature signature = Signature.getInstance("SHA256withECDSAinP1363Format");
            signature.initSign(key);
            signature.update(signingInput.getBytes(StandardCharsets.US_ASCII));
            return signingInput + "." + url.encodeToString(signature.sign());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> map = new HashMap<>();
        if (raw != null) {
            for (String pair : raw.split("&")) {
                String[] kv = pair.split("=", 2);
                map.put(URLDecoder.decode(kv[0], StandardCharsets.UTF_8),
                        kv.length > 1 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "");
            }
        }
        return map;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
