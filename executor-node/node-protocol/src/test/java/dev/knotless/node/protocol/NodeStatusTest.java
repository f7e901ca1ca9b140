package dev.knotless.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.node.protocol.ObservationVerifier.Verification;
import dev.knotless.testkit.FakeClock;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeStatusTest {

    final ProtocolJson json = new ProtocolJson();
    final FakeClock clock = new FakeClock();
    final KeyPair keys = Ed25519Keys.generate();
    final Signer signer = new Signer("node-a-id", keys.getPrivate(), json);
    final ObservationVerifier verifier = new ObservationVerifier("node-a", Keyset.single("node-a-id", keys.getPublic()), json, clock);

    final NodeStatus status = new NodeStatus(new NodeStatus.Capacity(4000, 8L << 30, 100L << 30),
            new NodeStatus.Health("0.9.0", "1.1.12", List.of("bridge", "host-local", "loopback")));

    @Test
    void theHelloRoundTripsSignedAndVerified() {
        byte[] frame = signer.sign(new Observation(Observation.VERSION, "node-a", clock.millis(), status));
        assertThat(verifier.verify(frame)).isInstanceOfSatisfying(Verification.Believed.class, b -> {
            assertThat(b.observation().report()).isEqualTo(status);
            assertThat(b.observation().observedAt()).isEqualTo(clock.millis());
        });
        assertThat(new String(json.write(status), StandardCharsets.UTF_8)).isEqualTo("{\"type\":\"node_status\","
                + "\"capacity\":{\"freeDiskBytes\":107374182400,\"memoryBytes\":8589934592,\"milliCpu\":4000},"
                + "\"health\":{\"agent\":\"0.9.0\",\"cniPlugins\":[\"bridge\",\"host-local\",\"loopback\"],\"runc\":\"1.1.12\"}}");
    }

    /** What an agent from before the status report sends on connecting: still believed, as it always was. */
    @Test
    void anOlderAgentsHelloWithoutStatusStillVerifies() {
        byte[] old = ("{\"node\":\"node-a\",\"observedAt\":" + clock.millis()
                + ",\"report\":{\"type\":\"orphans_found\",\"allocations\":[]},\"version\":1}").getBytes(StandardCharsets.UTF_8);
        byte[] frame = SignedFrame.sign(SignedFrame.Kind.OBSERVATION, "node-a-id", keys.getPrivate(), old);
        assertThat(verifier.verify(frame)).isInstanceOfSatisfying(Verification.Believed.class, b ->
                assertThat(b.observation().report()).isEqualTo(new Report.OrphansFound(List.of())));
    }

    @Test
    void aStatusMissingAFieldOrOutOfRangeIsRefused() throws Exception {
        assertThatThrownBy(() -> json.read("{\"type\":\"node_status\",\"capacity\":{\"freeDiskBytes\":1,\"memoryBytes\":1,\"milliCpu\":1}}"
                .getBytes(StandardCharsets.UTF_8), Report.class)).isInstanceOf(ProtocolJson.PayloadException.class);
        assertThatThrownBy(() -> new NodeStatus.Capacity(0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NodeStatus.Health("0.9.0", "1.1\n", List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NodeStatus.Health("0.9.0", "1.1", List.of("../x"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new NodeStatus.Health("0.9\u001b[2J", "1.1", List.of())).hasMessage("agent must be 1-100 printable ASCII characters");
    }
}
