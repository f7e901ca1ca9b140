package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

class ClientMessageTest {

    @Test
    void aFailureWithoutAnAnswerNamesItsCause() {
        KubernetesClientException e = new KubernetesClientException("Operation: [get]  for kind: [Pod]  failed.",
                new java.io.IOException("wrapped", new ConnectException("Connection refused")));
        assertThat(KubernetesExecutor.message(e)).isEqualTo("Operation: [get]  for kind: [Pod]  failed. (Connection refused)");
    }

    @Test
    void anAnswerIsTheServersOwnMessage() {
        KubernetesClientException e = new KubernetesClientException(new StatusBuilder().withCode(403)
                .withMessage("pods is forbidden").build());
        assertThat(KubernetesExecutor.message(e)).isEqualTo("pods is forbidden");
    }

    @Test
    void aMessageThatAlreadySaysItsCauseIsLeftAlone() {
        KubernetesClientException e = new KubernetesClientException("failed: Connection refused", new ConnectException("Connection refused"));
        assertThat(KubernetesExecutor.message(e)).isEqualTo("failed: Connection refused");
    }
}
