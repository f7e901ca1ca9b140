package dev.knotless.executor.kubernetes;

import static dev.knotless.executor.kubernetes.RecordingApiServer.JOB;
import static dev.knotless.executor.kubernetes.RecordingApiServer.JOB_PATH;
import static dev.knotless.executor.kubernetes.RecordingApiServer.NS;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.List;
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

    /**
     * A 1.20 kubelet leaves a pod its own deadline ended Terminating for good once deleted (the
     * test cluster gives it only past a run's deadline; here it is given at once, with a wait of 1 s
     * for the kubelet instead of 10): such a pod is removed without a grace period, once.
     */
    @Test
    void aPodThatEndedButWhoseDeletionIsHeldIsRemovedWithoutGrace() throws InterruptedException {
        String podPath = "/api/v1/namespaces/ns/pods/" + JOB + "-x1";
        var held = new PodBuilder().withNewMetadata().withName(JOB + "-x1").withNamespace(NS)
                .withDeletionTimestamp("2026-12-07T22:04:50Z").endMetadata()
                .withNewStatus().withPhase("Failed").withReason("DeadlineExceeded").endStatus().build();
        server.expect().delete().withPath(JOB_PATH).andReturn(200, new StatusBuilder().withStatus("Success").build()).once();
        // the server goes on answering with the held pod six times (3 s at 500 ms), then it and the Job are gone
        server.expect().get().withPath(JOB_PATH).andReturn(200, new JobBuilder().withNewMetadata().withName(JOB).endMetadata()
                .build()).times(6);
        server.expect().get().withPath(JOB_PATH).andReturn(404, new StatusBuilder().withCode(404).build()).always();
        server.expect().get().withPath(RecordingApiServer.PODS_PATH)
                .andReturn(200, new PodListBuilder().withItems(held).build()).times(6);
        server.expect().get().withPath(RecordingApiServer.PODS_PATH).andReturn(200, new PodListBuilder().build()).always();
        server.expect().delete().withPath(podPath).andReturn(200, held).always();

        boolean gone = new JobDeletion(client, NS, new KubernetesCounters(), Duration.ofSeconds(1)).delete(JOB);

        assertThat(gone).isTrue();
        List<RecordedRequest> asked = api.requests();
        List<String> deletes = asked.stream().filter(r -> r.getMethod().equals("DELETE")).map(RecordedRequest::getPath).toList();
        assertThat(deletes).as("the held pod removed once").containsExactly(JOB_PATH, podPath);
        RecordedRequest podDelete = asked.stream().filter(r -> r.getPath().equals(podPath)).findFirst().orElseThrow();
        assertThat(podDelete.getBody().readUtf8()).contains("\"gracePeriodSeconds\":0");
        assertThat(asked.subList(0, asked.indexOf(podDelete))).as("not at first sight: the kubelet has its time first")
                .filteredOn(r -> r.getPath().equals(RecordingApiServer.PODS_PATH)).hasSizeGreaterThanOrEqualTo(2);
        assertThat(JobDeletion.endedButHeld(new PodBuilder(held).editStatus().withPhase("Running").endStatus().build()))
                .as("a running pod keeps its grace").isFalse();
        assertThat(JobDeletion.endedButHeld(new PodBuilder(held).editMetadata().withDeletionTimestamp(null).endMetadata().build()))
                .as("an ended pod nobody deletes is the Job's to remove").isFalse();
    }
}
