package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeconfigsTest {

    @Test
    void aClientFromAKubeconfigWaitsLongerForAConnectionThanFabric8sDefault(@TempDir Path dir) throws Exception {
        Path kubeconfig = Files.writeString(dir.resolve("config"), """
                apiVersion: v1
                kind: Config
                clusters:
                - name: c
                  cluster: {server: "https://127.0.0.1:9"}
                users:
                - name: u
                  user: {token: "t"}
                contexts:
                - name: x
                  context: {cluster: c, user: u, namespace: ns}
                current-context: x
                """);

        Config config = Kubeconfigs.load(kubeconfig.toString(), null);

        assertThat(Config.empty().getConnectionTimeout()).isLessThan(Kubeconfigs.CONNECT_TIMEOUT_MILLIS);
        assertThat(config.getConnectionTimeout()).isEqualTo(Kubeconfigs.CONNECT_TIMEOUT_MILLIS);
        assertThat(config.getMasterUrl()).startsWith("https://127.0.0.1:9");
    }
}
