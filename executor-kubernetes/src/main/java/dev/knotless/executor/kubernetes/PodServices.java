package dev.knotless.executor.kubernetes;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.toolkit.ServiceReadiness;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.executor.StopSignal;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;

/**
 * A run's services as containers of its pod ({@link JobShape}): whether one ended while its ports
 * are waited for, and its log ({@code pods/log} of its container; the kubelet keeps both streams
 * as one, so it all arrives as stdout).
 */
record PodServices(RunPod pod) implements ServiceReadiness.Watch {

    @Override
    public Optional<String> ended(ServiceSpec service) throws ExecutorException {
        try {
            Pod p = pod.client().pods().inNamespace(pod.namespace()).withName(pod.pod()).get();
            return p == null ? Optional.of("the pod " + pod.pod() + " was deleted") : PodReadiness.serviceEnded(p, service);
        } catch (KubernetesClientException e) {
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "cannot read pod " + pod.pod() + ": " + KubernetesExecutor.message(e)), e);
        }
    }

    void log(String service, long maxBytes, OutputSink output, StopSignal signal) throws ExecutorException {
        if (pod.spec().service(service).isEmpty()) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "run " + pod.spec().runId() + " has no service '" + service + "'");
        }
        ExecutorException.throwIfStopped(signal, "log of service '" + service + "'");
        try (InputStream in = pod.client().pods().inNamespace(pod.namespace()).withName(pod.pod())
                .inContainer(JobShape.serviceContainerName(service))
                .limitBytes((int) Math.min(Integer.MAX_VALUE, maxBytes)).getLogInputStream()) {
            byte[] buffer = new byte[16 * 1024];
            long left = maxBytes;
            int n;
            while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) {
                output.write(OutputSink.Stream.STDOUT, buffer, 0, n);
                left -= n;
            }
        } catch (IOException | KubernetesClientException e) {
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE, "cannot read the log of service '" + service
                    + "': " + (e instanceof KubernetesClientException k ? KubernetesExecutor.message(k) : e.getMessage())), e);
        }
    }
}
