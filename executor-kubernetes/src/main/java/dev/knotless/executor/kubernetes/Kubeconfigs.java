package dev.knotless.executor.kubernetes;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.vertx5.Vertx5HttpClientFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Clients from kubeconfig files, always with the one HTTP client we ship (two on the class path
 * would be picked arbitrarily).
 */
public final class Kubeconfigs {

    /**
     * How long a new connection to the API server may take. fabric8's default is 10 s, which a
     * host under heavy load missed while the client's event loop was still loading classes on
     * first use; a refused connection still fails at once, so only a silent network waits this long.
     */
    static final int CONNECT_TIMEOUT_MILLIS = 30_000;

    private Kubeconfigs() {}

    /** {@code config} with the timeouts every client of ours uses. */
    static Config tuned(Config config) {
        config.setConnectionTimeout(CONNECT_TIMEOUT_MILLIS);
        return config;
    }

    /** The config of {@code context} (null: the current one) in the kubeconfig at {@code path}. */
    public static Config load(String path, String context) throws IOException {
        Config config = Config.fromKubeconfig(context, Files.readString(Path.of(path)), path);
        // fabric8 8.0.0 leaves the key algorithm at RSA for a PKCS#8 key given in a kubeconfig's
        // text (fabric8io/kubernetes-client#3535, #8022); EC keys (kubeadm, kind, our test
        // cluster) then fail with "Invalid DER: object is not integer".
        String pem = config.getClientKeyData() != null
                ? new String(Base64.getDecoder().decode(config.getClientKeyData().strip()), StandardCharsets.US_ASCII)
                : config.getClientKeyFile() != null ? Files.readString(Path.of(config.getClientKeyFile())) : null;
        if (pem != null) {
            config.setClientKeyAlgo(keyAlgorithm(pem));
        }
        return tuned(config);
    }

    /** RSA or EC, from the PEM header or, for PKCS#8 ({@code BEGIN PRIVATE KEY}), from the key itself. */
    static String keyAlgorithm(String pem) {
        if (pem.contains("BEGIN EC PRIVATE KEY")) {
            return "EC";
        }
        if (pem.contains("BEGIN PRIVATE KEY")) {
            String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
            try {
                KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(body)));
                return "EC";
            } catch (GeneralSecurityException | IllegalArgumentException e) {
                return "RSA";
            }
        }
        return "RSA";
    }

    public static KubernetesClient client(Config config) {
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new Vertx5HttpClientFactory()).build();
    }
}
