package dev.knotless.node.cni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What needs no root and no plugin: validation, the exact configuration bytes, holders from the state on disk. */
class CniNetworkTest {

    static final Duration T = Duration.ofSeconds(5);

    @TempDir
    Path state;

    CniNetwork network(String subnet) {
        return new CniNetwork(Path.of("/usr/lib/cni"), state, "knotless", "knotless0", subnet, T);
    }

    @Test
    void theConfigurationIsTheSameBytesForTheSameInputs() {
        byte[] one = network("10.213.0.0/24").addConfig();
        byte[] two = new CniNetwork(Path.of("/elsewhere"), state, "knotless", "knotless0", "10.213.0.0/24", Duration.ofSeconds(9)).addConfig();
        assertThat(one).isEqualTo(two);
        assertThat(new String(one, StandardCharsets.UTF_8)).isEqualTo("{\"bridge\":\"knotless0\",\"cniVersion\":\"1.0.0\","
                + "\"ipMasq\":true,\"ipam\":{\"dataDir\":\"" + state.toAbsolutePath() + "/ipam\",\"ranges\":[[{\"subnet\":\"10.213.0.0/24\"}]],"
                + "\"routes\":[{\"dst\":\"0.0.0.0/0\"}],\"type\":\"host-local\"},\"isGateway\":true,\"name\":\"knotless\",\"type\":\"bridge\"}");
        assertThat(network("10.213.1.0/24").addConfig()).isNotEqualTo(one);
    }

    @Test
    void aPreviousResultIsWrittenWithSortedKeysWhateverItsOrder() throws Exception {
        NetworkConfig config = new NetworkConfig("n", "b", "10.0.0.0/24", state);
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        var a = mapper.readTree("{\"ips\":[{\"gateway\":\"10.0.0.1\",\"address\":\"10.0.0.2/24\"}],\"cniVersion\":\"1.0.0\"}");
        var b = mapper.readTree("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.2/24\",\"gateway\":\"10.0.0.1\"}]}");
        assertThat(config.firewall(Optional.of(a))).isEqualTo(config.firewall(Optional.of(b)));
        assertThat(new String(config.firewall(Optional.of(a)), StandardCharsets.UTF_8)).isEqualTo("{\"backend\":\"iptables\","
                + "\"cniVersion\":\"1.0.0\",\"name\":\"n\",\"prevResult\":{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.2/24\","
                + "\"gateway\":\"10.0.0.1\"}]},\"type\":\"firewall\"}");
    }

    @Test
    void badInputIsOneLine() {
        assertThatThrownBy(() -> network("10.213.0.1/24")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("subnet 10.213.0.1/24 has host bits set; the network address is 10.213.0.0/24");
        assertThatThrownBy(() -> network("10.213.0.0")).hasMessage("not an IPv4 subnet: \"10.213.0.0\" (e.g. 10.213.0.0/24)");
        assertThatThrownBy(() -> network("10.300.0.0/24")).hasMessageContaining("300 is not an octet");
        assertThatThrownBy(() -> network("10.0.0.0/31")).hasMessageContaining("the prefix must be /8 to /30");
        assertThatThrownBy(() -> new CniNetwork(Path.of("/x"), state, "knotless", "a-bridge-name-of-16", "10.0.0.0/24", T))
                .hasMessageStartingWith("not a bridge name: \"a-bridge-name-of-16\"");
        assertThatThrownBy(() -> new CniNetwork(Path.of("/x"), state, "../etc", "kn0", "10.0.0.0/24", T))
                .hasMessageStartingWith("not a network name: \"../etc\"");
        assertThatThrownBy(() -> new CniNetwork(Path.of("/x"), state, "kn", "kn0", "10.0.0.0/24", Duration.ZERO))
                .hasMessage("the plugin timeout must be positive, not PT0S");
        assertThatThrownBy(() -> network("10.0.0.0/24").attach("../x", Path.of("/proc/1/ns/net")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a container id: \"../x\" (a letter or digit, then up to 127 letters, digits, '_', '.' or '-')");
    }

    @Test
    void aMissingPluginDirectoryIsOneLineButDetachingNothingNeedsNoPlugin() throws Exception {
        Path missing = state.resolve("nowhere");
        CniNetwork net = new CniNetwork(missing, state, "knotless", "knotless0", "10.213.0.0/24", T);
        assertThatThrownBy(() -> net.attach("c1", Path.of("/proc/self/ns/net")))
                .isInstanceOf(NetworkException.class)
                .hasMessage("CNI plugin directory " + missing + " does not exist (Debian: apt-get install containernetworking-plugins)");
        net.detach("c1", Optional.empty());
        assertThat(net.holders()).isEmpty();
    }

    @Test
    void holdersAreTheUnionOfLeasesRecordsAndPins() throws Exception {
        // host-local's layout, as CniNetworkIT sees it written by the real plugin: the lease's first
        // line is the container id ("\r\n" then the interface), beside a lock and the last reservation.
        Path leases = Files.createDirectories(state.resolve("ipam/knotless"));
        Files.writeString(leases.resolve("10.213.0.2"), "leased\r\neth0");
        Files.writeString(leases.resolve("10.213.0.3"), "old-style");
        Files.writeString(leases.resolve("lock"), "");
        Files.writeString(leases.resolve("last_reserved_ip.0"), "10.213.0.3");
        Files.writeString(Files.createDirectories(state.resolve("attachments")).resolve("recorded.json"),
                "{\"complete\":true,\"containerId\":\"recorded\",\"result\":{}}");
        Files.writeString(state.resolve("attachments").resolve(".recorded.tmp"), "");
        Files.createFile(Files.createDirectories(state.resolve("netns")).resolve("pinned"));
        assertThat(network("10.213.0.0/24").holders()).containsExactly("leased", "old-style", "pinned", "recorded");
    }

    @Test
    void detachRefusesTheNodesOwnNamespace() throws Exception {
        // Held (a pin file left unmounted, as after a crash) but not pinned: the given path would go to
        // the bridge plugin's DEL, which deletes eth0 in it; the node's own eth0 must never be that.
        Files.createFile(Files.createDirectories(state.resolve("netns")).resolve("c1"));
        CniNetwork net = network("10.213.0.0/24");
        assertThatThrownBy(() -> net.detach("c1", Optional.of(Path.of("/proc/self/ns/net"))))
                .isInstanceOf(NetworkException.class)
                .hasMessage("/proc/self/ns/net is the node's own network namespace, not a container's; refused");
        Path file = Files.writeString(state.resolve("plain"), "x");
        assertThatThrownBy(() -> net.detach("c1", Optional.of(file)))
                .hasMessage(file + " is not a network namespace (expected /proc/<pid>/ns/net or a bind mount of one)");
        assertThat(net.holders()).containsExactly("c1");
    }

    @Test
    void aDamagedRecordIsOneLine() throws Exception {
        Files.writeString(Files.createDirectories(state.resolve("attachments")).resolve("c1.json"), "{\"complete\":tr");
        assertThatThrownBy(() -> network("10.213.0.0/24").attach("c1", Path.of("/proc/self/ns/net")))
                .isInstanceOf(NetworkException.class)
                .hasMessageStartingWith("attachment record " + state.toAbsolutePath() + "/attachments/c1.json is damaged: ")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aLeaseStandsInForALostResult() {
        NetworkConfig config = new NetworkConfig("n", "b", "10.0.0.0/24", state);
        var leases = new java.util.TreeMap<String, String>();
        leases.put("10.0.0.2", "c1");
        leases.put("10.0.0.3", "c2");
        assertThat(config.resultFromLeases("c1", leases)).hasValueSatisfying(r ->
                assertThat(r.toString()).isEqualTo("{\"cniVersion\":\"1.0.0\",\"ips\":[{\"address\":\"10.0.0.2/24\"}]}"));
        assertThat(config.resultFromLeases("c3", leases)).isEmpty();
    }
}
