package dev.knotless.cli;

import dev.knotless.executor.Executor;
import dev.knotless.executor.Guarded;
import dev.knotless.executor.docker.DockerExecutor;
import dev.knotless.executor.kubernetes.KubernetesExecutor;
import dev.knotless.executor.kubernetes.KubernetesOptions;
import java.util.Iterator;
import java.util.List;

/** The one place that names every executor and builds the chosen one. */
final class ExecutorWiring {

    private ExecutorWiring() {}

    /** The chosen executor, guarded ({@link Guarded}): what every run of this process gets. */
    static Executor create(String name, RunnerOptions options, boolean warm) {
        return Guarded.executor(switch (name) {
            case "docker" -> new DockerExecutor(options.dockerSocket, warm);
            case "kubernetes" -> new KubernetesExecutor(kubernetes(options.kubernetes), warm);
            case "node" -> NodeWiring.executor(options.node, options.stateDir());
            default -> throw new IllegalArgumentException(
                    "--executor " + name + ": unknown executor; choose one of " + String.join(", ", new Names()));
        });
    }

    /** What the {@code --executor kubernetes} flags ask for. */
    static KubernetesOptions kubernetes(RunnerOptions.KubernetesFlags k) {
        return new KubernetesOptions(k.kubeconfig, k.context, k.namespace, k.serviceAccount, k.nodeSelector,
                k.cpuRequest, k.memoryRequest, k.pendingTimeout, k.cpuLimit, k.memoryLimit, k.untrustedDns, k.reattachWindow);
    }

    /** The names {@code --executor} accepts. */
    static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of("docker", "kubernetes", "node").iterator();
        }
    }
}
