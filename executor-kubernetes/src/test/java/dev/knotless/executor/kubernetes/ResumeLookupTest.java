package dev.knotless.executor.kubernetes;

import static dev.knotless.executor.kubernetes.RecordingApiServer.JOB;
import static dev.knotless.executor.kubernetes.RecordingApiServer.JOB_PATH;
import static dev.knotless.executor.kubernetes.RecordingApiServer.NS;
import static dev.knotless.executor.kubernetes.RecordingApiServer.PODS_PATH;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Labels;
import dev.knotless.executor.RunSpec;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodListBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * A mock API server, because the fault is one the real one gives only by chance: the first reads
 * of a daemon that has just started failing while everything else is healthy. {@code
 * DaemonResumeIT} restarts real daemons under runs on the real cluster.
 */
class ResumeLookupTest {

    private static final RunSpec SPEC = RunSpec.builder("runner-1", "run-1", "image").build();

    @AutoClose private final RecordingApiServer api = new RecordingApiServer();
    private final KubernetesMockServer server = api.server();
    private final KubernetesClient client = api.client();

    @Test
    void aReadRefusedWhileTheDaemonWarmsUpIsAskedAgainAndTheRunGoesOn() throws InterruptedException {
        server.expect().get().withPath(JOB_PATH).andReturn(500, new StatusBuilder().withCode(500).build()).once();
        server.expect().get().withPath(JOB_PATH).andReturn(200, job()).once();
        server.expect().get().withPath(PODS_PATH).andReturn(503, new StatusBuilder().withCode(503).build()).once();
        server.expect().get().withPath(PODS_PATH).andReturn(200, new PodListBuilder().addToItems(readyPod()).build()).once();

        ResumeLookup.Found found = new ResumeLookup(client, NS, Duration.ofSeconds(30), Duration.ofMillis(10)).find(SPEC);

        assertThat(found).isEqualTo(new ResumeLookup.Found.Ready(JOB, JOB + "-abcde"));
        assertThat(api.asked()).containsExactly("GET " + JOB_PATH, "GET " + JOB_PATH, "GET " + PODS_PATH, "GET " + PODS_PATH);
    }

    @Test
    void aServerThatRefusesEveryReadEndsTheResumeWithWhyAfterItsPatience() throws InterruptedException {
        server.expect().get().withPath(JOB_PATH)
                .andReturn(403, new StatusBuilder().withCode(403).withMessage("jobs.batch is forbidden").build()).always();

        ResumeLookup.Found found = new ResumeLookup(client, NS, Duration.ofSeconds(1), Duration.ofMillis(50)).find(SPEC);

        assertThat(found).isInstanceOf(ResumeLookup.Found.Refused.class);
        assertThat(((ResumeLookup.Found.Refused) found).reason())
                .isEqualTo("the API server refused every read for 1s: jobs.batch is forbidden");
        assertThat(api.asked()).hasSizeGreaterThan(1).containsOnly("GET " + JOB_PATH);
    }

    @Test
    void aJobOfAnotherRunnerIsNotResumed() throws InterruptedException {
        server.expect().get().withPath(JOB_PATH).andReturn(200, new JobBuilder(job())
                .editMetadata().addToAnnotations(Labels.RUNNER, "runner-2").endMetadata().build()).once();

        ResumeLookup.Found found = new ResumeLookup(client, NS).find(SPEC);

        assertThat(found).isEqualTo(new ResumeLookup.Found.Refused(JOB, "not this run's"));
        assertThat(api.asked()).containsExactly("GET " + JOB_PATH);
    }

    private static io.fabric8.kubernetes.api.model.batch.v1.Job job() {
        return new JobBuilder().withNewMetadata().withName(JOB).withNamespace(NS)
                .addToAnnotations(Labels.RUNNER, "runner-1").addToAnnotations(Labels.RUN, "run-1").endMetadata().build();
    }

    private static io.fabric8.kubernetes.api.model.Pod readyPod() {
        return new PodBuilder().withNewMetadata().withName(JOB + "-abcde").withNamespace(NS)
                .addToLabels(JobShape.JOB_NAME, JOB).endMetadata()
                .withNewStatus().withPhase("Running").addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus()
                .build();
    }
}
