package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.node.NodeSettings;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The {@code --executor node} flags become the node executor's settings, and nothing of them is lost. */
class NodeWiringTest {

    static RunnerOptions.NodeFlags flags() {
        RunnerOptions.NodeFlags flags = new RunnerOptions.NodeFlags();
        flags.listen = "[::1]:7443";
        flags.nodes = Path.of("/etc/knotless/nodes");
        flags.key = Path.of("/etc/knotless/runner.key");
        flags.keyId = "runner-2026";
        flags.network = "build";
        flags.placementWait = Duration.ofSeconds(45);
        return flags;
    }

    @Test
    void everyFlagReachesTheSettings() {
        NodeSettings settings = NodeWiring.settings(flags(), Path.of("/var/lib/knotless-run"));

        assertThat(settings).isEqualTo(new NodeSettings(new InetSocketAddress("::1", 7443), Path.of("/etc/knotless/nodes"),
                Path.of("/etc/knotless/runner.key"), Optional.of("runner-2026"), Optional.of("build"), Duration.ofSeconds(45),
                Path.of("/var/lib/knotless-run")));
    }

    @Test
    void noNetworkAndNoKeyIdAreEmpty() {
        RunnerOptions.NodeFlags flags = flags();
        flags.network = "none";
        flags.keyId = null;

        NodeSettings settings = NodeWiring.settings(flags, Path.of("/state"));

        assertThat(settings.network()).isEmpty();
        assertThat(settings.keyId()).isEmpty();
    }

    @Test
    void withoutTheNodesFileOrTheKeyTheFlagsAreRefusedWithOneLine() {
        RunnerOptions.NodeFlags noNodes = flags();
        noNodes.nodes = null;
        RunnerOptions.NodeFlags noKey = flags();
        noKey.key = null;
        RunnerOptions.NodeFlags badListen = flags();
        badListen.listen = "7443";

        assertThatThrownBy(() -> NodeWiring.settings(noNodes, Path.of("/state")))
                .hasMessage("--executor node needs --nodes FILE and --node-key FILE");
        assertThatThrownBy(() -> NodeWiring.settings(noKey, Path.of("/state")))
                .hasMessage("--executor node needs --nodes FILE and --node-key FILE");
        assertThatThrownBy(() -> NodeWiring.settings(badListen, Path.of("/state"))).hasMessage("'7443' is not HOST:PORT");
    }
}
