package dev.knotless.node.process;

import dev.knotless.node.allocation.AllocationNetwork;
import dev.knotless.node.cni.CniNetwork;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/** The node's allocation network over CNI's {@code bridge} and {@code host-local} plugins. */
public final class CniAllocationNetwork implements AllocationNetwork {

    private static final Duration PLUGIN_TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final CniNetwork cni;

    public CniAllocationNetwork(AgentProcess.NetworkConfig config) {
        this.name = config.name();
        this.cni = new CniNetwork(config.pluginDir(), config.stateDir(), "knotless-" + config.name(), config.bridge(),
                config.subnet(), PLUGIN_TIMEOUT);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String attach(String allocation, Path netns) throws Exception {
        return cni.attach(allocation, netns).address();
    }

    @Override
    public void detach(String allocation, Optional<Path> netns) throws Exception {
        cni.detach(allocation, netns);
    }

    @Override
    public Set<String> holders() throws Exception {
        return cni.holders();
    }
}
