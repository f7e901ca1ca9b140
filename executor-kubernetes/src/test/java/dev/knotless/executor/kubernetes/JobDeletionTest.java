package dev.knotless.executor.kubernetes;

import static dev.knotless.executor.kubernetes.RecordingApiServer.JOB;
import static dev.knotless.executor.kubernetes.RecordingApiServer.JOB_PATH;
import static dev.knotless.executor.kubernetes.RecordingApiServer.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * A mock API server, because the fault is one the real one gives only by chance: an API server
 * just back from a restart refusing requests (403 while its authorizer loads) before the runner
 * has seen it down at all. {@code ClusterFaultIT} restarts the real one.
 */
class JobDeletionTest {


    @AutoClose private final RecordingApiServer api = new RecordingApiServer();
    private final KubernetesMockServer server = api.server();
    private final KubernetesClient client = api.client();

    @Test
    void aRefusalFromAnApiServerJustBackIsAskedAgainUntilTheJobIsGone() throws InterruptedException {
        var warmingUp = new StatusBuilder().withCode(403).withReason("Forbidden")
                .withMessage("jobs.batch \"" + JOB + "\" is forbidden: RBAC: not yet ready").build();
        server.expect().delete().withPath(JOB_PATH).andReturn(403, warmingUp).times(2);
        server.expect().delete().withPath(JOB_PATH).andReturn(200, new StatusBuilder().withStatus("Success").build()).once();
        server.expect().get().withPath(JOB_PATH).andReturn(500, new StatusBuilder().withCode(500).withMessage("etcd").build()).once();
        server.expect().get().withPath(JOB_PATH).andReturn(404, new StatusBuilder().withCode(404).build()).always();
        server.expect().get().withPath(RecordingApiServer.PODS_PATH)
                .andReturn(200, new PodListBuilder().build()).always();
        KubernetesCounters counters = new KubernetesCounters();

        boolean gone = new JobDeletion(client, NS, counters).delete(JOB);

        assertThat(gone).isTrue();
        assertThat(api.asked()).containsExactly(
                "DELETE " + JOB_PATH, "DELETE " + JOB_PATH, "DELETE " + JOB_PATH,
                "GET " + JOB_PATH, "GET " + JOB_PATH, "GET " + RecordingApiServer.PODS_PATH);
        assertThat(counters.snapshot().jobsDeleted()).isEqualTo(1);
        assertThat(counters.snapshot().cleanupFailures()).isZero();
    }
}
