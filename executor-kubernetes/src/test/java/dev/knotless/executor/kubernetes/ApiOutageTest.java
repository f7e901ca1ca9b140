package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

class ApiOutageTest {

    @Test
    void noAnswerAtAllOrAServerThatCannotServeYetIsAnOutage() {
        assertThat(ApiOutage.isOutage(new KubernetesClientException("Connection refused"))).isTrue();
        assertThat(ApiOutage.isOutage(new KubernetesClientException("etcd not ready", 503, null))).isTrue();
        assertThat(ApiOutage.isOutage(new KubernetesClientException("too many requests", 429, null))).isTrue();
        assertThat(ApiOutage.isOutage(new KubernetesClientException("internal", 500, null))).isTrue();
    }

    @Test
    void anAnswerThatRefusesIsNot() {
        assertThat(ApiOutage.isOutage(new KubernetesClientException("forbidden", 403, null))).isFalse();
        assertThat(ApiOutage.isOutage(new KubernetesClientException("not found", 404, null))).isFalse();
        assertThat(ApiOutage.isOutage(new KubernetesClientException("conflict", 409, null))).isFalse();
    }

    @Test
    void aRefusalRightAfterAnOutageIsTheAuthorizerWarmingUpAndAskedAgain() {
        KubernetesClientException forbidden = new KubernetesClientException("forbidden", 403, null);
        assertThat(ApiOutage.isOutage(forbidden, true)).isTrue();
        assertThat(ApiOutage.isOutage(forbidden, false)).isFalse();
        assertThat(ApiOutage.isOutage(new KubernetesClientException("not found", 404, null), true)).isFalse();
    }
}
