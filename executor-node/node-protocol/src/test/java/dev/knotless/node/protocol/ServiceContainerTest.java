package dev.knotless.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A create's services and {@code read_service_log} on the wire: canonical, strict, checked. */
class ServiceContainerTest {

    static final String IMAGE = "127.0.0.1:5000/knotless/test@sha256:" + "a".repeat(64);
    final ProtocolJson json = new ProtocolJson();

    @Test
    void aCreateWithServicesComesBackAsItWasSent() throws Exception {
        Action create = new Action.CreateAllocation("node-a", "kn-1", IMAGE, 1000, 512L << 20, Map.of(), ProcessHardening.DEFAULT,
                60_000, List.of(new ServiceContainer("db", IMAGE, List.of("POSTGRES_PASSWORD=test", "EMPTY="), List.of("postgres", "-c", "fsync=off"))));
        byte[] wire = json.write(create);
        assertThat(new String(wire, StandardCharsets.UTF_8))
                .contains("\"services\":[{\"command\":[\"postgres\",\"-c\",\"fsync=off\"],\"env\":[\"POSTGRES_PASSWORD=test\",\"EMPTY=\"],"
                        + "\"image\":\"" + IMAGE + "\",\"name\":\"db\"}]");
        assertThat(json.read(wire, Action.class)).isEqualTo(create);
    }

    @Test
    void aCreateWithoutTheServicesFieldIsRefusedAsAnyMissingField() {
        String old = "{\"type\":\"create_allocation\",\"allocation\":\"kn-1\",\"cpuMillis\":1000,\"hardening\":"
                + new String(json.write(ProcessHardening.DEFAULT), StandardCharsets.UTF_8)
                + ",\"image\":\"" + IMAGE + "\",\"labels\":{},\"lifetimeMs\":0,\"memoryBytes\":536870912,\"node\":\"node-a\"}";
        assertThatThrownBy(() -> json.read(old.getBytes(StandardCharsets.UTF_8), Action.class))
                .isInstanceOf(ProtocolJson.PayloadException.class).hasMessageContaining("services");
    }

    @Test
    void readServiceLogAndItsResultComeBack() throws Exception {
        Action read = new Action.ReadServiceLog("node-a", "kn-1", "db", 65536);
        assertThat(json.read(json.write(read), Action.class)).isEqualTo(read);
        Result.ServiceLog log = new Result.ServiceLog("kn-1", "db", "ready\n".getBytes(StandardCharsets.UTF_8));
        Result back = json.read(json.write(log), Result.class);
        assertThat(back).isInstanceOfSatisfying(Result.ServiceLog.class,
                r -> assertThat(new String(r.log(), StandardCharsets.UTF_8)).isEqualTo("ready\n"));
    }

    @Test
    void whatANodeMustNotTakeIsRefused() {
        assertThatThrownBy(() -> new ServiceContainer("DB", IMAGE, List.of(), List.of())).hasMessageContaining("DNS label");
        assertThatThrownBy(() -> new ServiceContainer("db", "postgres:16", List.of(), List.of())).hasMessageContaining("sha256");
        assertThatThrownBy(() -> new ServiceContainer("db", IMAGE, List.of("NO_EQUALS"), List.of())).hasMessageContaining("NAME=value");
        assertThatThrownBy(() -> new ServiceContainer("db", IMAGE, List.of("A=\0"), List.of())).hasMessageContaining("NAME=value");
        ServiceContainer db = new ServiceContainer("db", IMAGE, List.of(), List.of());
        assertThatThrownBy(() -> new Action.CreateAllocation("node-a", "kn-1", IMAGE, 1000, 512L << 20, Map.of(),
                ProcessHardening.DEFAULT, 0, List.of(db, db))).hasMessageContaining("two services have one name");
        assertThatThrownBy(() -> new Action.ReadServiceLog("node-a", "kn-1", "db", 0)).hasMessageContaining("maxBytes");
    }
}
