package dev.knotless.executor.kubernetes;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * fabric8's mock API server in expectation mode, with a client of it, for the faults the real API
 * server gives only by chance; tests say which ({@code JobDeletionTest}, {@code ResumeLookupTest}).
 */
final class RecordingApiServer implements AutoCloseable {

    /** The namespace, Job and paths of the one run these tests ask about ({@code run-1}). */
    static final String NS = "ns";
    static final String JOB = JobShape.jobName("run-1");
    static final String JOB_PATH = "/apis/batch/v1/namespaces/ns/jobs/" + JOB;
    static final String PODS_PATH = "/api/v1/namespaces/ns/pods?labelSelector=job-name%3D" + JOB;

    private final KubernetesMockServer server = new KubernetesMockServer(false);
    private final KubernetesClient client;

    RecordingApiServer() {
        server.init();
        client = server.createClient();
    }

    KubernetesMockServer server() {
        return server;
    }

    KubernetesClient client() {
        return client;
    }

    /** The requests the server was asked, in order, as {@code METHOD PATH}. */
    List<String> asked() throws InterruptedException {
        return requests().stream().map(r -> r.getMethod() + " " + r.getPath()).toList();
    }

    /** The requests the server was asked, in order, with their bodies. */
    List<RecordedRequest> requests() throws InterruptedException {
        List<RecordedRequest> asked = new ArrayList<>();
        for (RecordedRequest request; (request = server.takeRequest(0, TimeUnit.SECONDS)) != null; ) {
            asked.add(request);
        }
        return asked;
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
