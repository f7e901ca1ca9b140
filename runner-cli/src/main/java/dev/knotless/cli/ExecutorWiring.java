package dev.knotless.cli;

import dev.knotless.executor.Executor;
import dev.knotless.executor.Guarded;
import dev.knotless.executor.docker.DockerExecutor;
import dev.knotless.executor.kubernetes.KubernetesExecutor;
import dev.knotless.executor.kubernetes.KubernetesOptions;
import dev.knotless.http.NodeFleet;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** The one place that names every executor and builds the chosen one. */
final class ExecutorWiring {

    private ExecutorWiring() {}

    /**
     * An executor as this process opened it, and with {@code node} the fleet the daemon's API shows
     * and drains ({@code /api/nodes}); closing it closes the executor.
     */
    record Wired(Executor executor, @Nullable NodeFleet fleet) implements AutoCloseable {
        @Override
        public void close() {
            executor.close();
        }
    }

    /** The chosen executor, guarded ({@link Guarded}): what every run of this process gets. */
    static Wired create(String name, RunnerOptions options, boolean warm) {
        return switch (name) {
            case "docker" -> guarded(new Wired(new DockerExecutor(options.dockerSocket, warm), null));
            case "kubernetes" -> guarded(new Wired(new KubernetesExecutor(kubernetes(options.kubernetes), warm), null));
            case "node" -> guarded(NodeWiring.open(options.node, options.stateDir()));
            default -> throw new IllegalArgumentException(
                    "--executor " + name + ": unknown executor; choose one of " + String.join(", ", new Names()));
        };
    }

    private static Wired guarded(Wired wired) {
        return new Wired(Guarded.executor(wired.executor()), wired.fleet());
    }

    /** What the {@code --executor kubernetes} flags ask for. */
    static KubernetesOptions kubernetes(RunnerOptions.KubernetesFlags k) {
        return new KubernetesOptions(k.kubeconfig, k.context, k.namespace, k.serviceAccount, k.nodeSelector,
                k.cpuRequest, k.memoryRequest, k.pendingTimeout, k.cpuLimit, k.memoryLimit, k.untrustedDns, k.reattachWindow,
                k.acceptUnenforcedNetworkPolicy, k.probeImage);
    }

    /** The names {@code --executor} accepts. */
    static final class Names implements Iterable<String> {
        @Override
        public Iterator<String> iterator() {
            return List.of("docker", "kubernetes", "node").iterator();
        }
    }
}
