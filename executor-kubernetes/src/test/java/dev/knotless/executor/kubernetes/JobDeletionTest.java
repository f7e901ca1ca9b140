package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A mock API server, because the fault is one the real one gives only by chance: an API server
 * just back from a restart refusing requests (403 while its authorizer loads) before the runner
 * has seen it down at all. {@code ClusterFaultIT} restarts the real one.
 */
class JobDeletionTest {

    private static final String NS = "ns";
    private static final String JOB = "knotless-run-1";
    private static final String JOB_PATH = "/apis/batch/v1/namespaces/ns/jobs/" + JOB;

    private final KubernetesMockServer server = new KubernetesMockServer(false);
    private KubernetesClient client;

    @BeforeEach
    void start() {
        server.init();
        client = server.createClient();
    }

    @AfterEach
    void stop() {
        client.close();
        server.destroy();
    }

    @Test
    void aRefusalFromAnApiServerJustBackIsAskedAgainUntilTheJobIsGone() throws InterruptedException {
        var warmingUp = new StatusBuilder().withCode(403).withReason("Forbidden")
                .withMessage("jobs.batch \"" + JOB + "\" is forbidden: RBAC: not yet ready").build();
        server.expect().delete().withPath(JOB_PATH).andReturn(403, warmingUp).times(2);
        server.expect().delete().withPath(JOB_PATH).andReturn(200, new StatusBuilder().withStatus("Success").build()).once();
        server.expect().get().withPath(JOB_PATH).andReturn(500, new StatusBuilder().withCode(500).withMessage("etcd").build()).once();
        server.expect().get().withPath(JOB_PATH).andReturn(404, new StatusBuilder().withCode(404).build()).always();
        server.expect().get().withPath("/api/v1/namespaces/ns/pods?labelSelector=job-name%3D" + JOB)
                .andReturn(200, new PodListBuilder().build()).always();
        KubernetesCounters counters = new KubernetesCounters();

        boolean gone = new JobDeletion(client, NS, counters).delete(JOB);

        assertThat(gone).isTrue();
        assertThat(asked()).containsExactly(
                "DELETE " + JOB_PATH, "DELETE " + JOB_PATH, "DELETE " + JOB_PATH,
                "GET " + JOB_PATH, "GET " + JOB_PATH, "GET /api/v1/namespaces/ns/pods?labelSelector=job-name%3D" + JOB);
        assertThat(counters.snapshot().jobsDeleted()).isEqualTo(1);
        assertThat(counters.snapshot().cleanupFailures()).isZero();
    }

    private List<String> asked() throws InterruptedException {
        List<String> asked = new ArrayList<>();
        for (RecordedRequest request; (request = server.takeRequest(0, TimeUnit.SECONDS)) != null; ) {
            asked.add(request.getMethod() + " " + request.getPath());
        }
        return asked;
    }
}
