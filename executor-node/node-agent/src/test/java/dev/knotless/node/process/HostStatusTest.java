package dev.knotless.node.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.NodeStatus;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostStatusTest {

    static NodeStatus status(long cpu, long memory, long disk) {
        return new NodeStatus(new NodeStatus.Capacity(cpu, memory, disk), new NodeStatus.Health("dev", "1.1.12", List.of("bridge")));
    }

    @Test
    void runcVersionIsReadFromItsFirstLine() {
        assertThat(HostStatus.parseRuncVersion("runc version 1.1.12+ds1\ncommit: 1.1.12+ds1-5\nspec: 1.0.2-dev\n"))
                .contains("1.1.12+ds1");
        assertThat(HostStatus.parseRuncVersion("bash: runc: command not found")).isEmpty();
        assertThat(HostStatus.runcVersion("/nonexistent/runc")).isEqualTo("none");
    }

    @Test
    void onlyAMaterialChangeIsToldAgain() {
        NodeStatus before = status(4000, 8L << 30, 100L << 30);
        assertThat(HostStatus.material(before, status(4000, 8L << 30, (100L << 30) - (1L << 30)))).isFalse();
        assertThat(HostStatus.material(before, status(4000, 8L << 30, 89L << 30))).isTrue();
        assertThat(HostStatus.material(before, status(2000, 8L << 30, 100L << 30))).isTrue();
        assertThat(HostStatus.material(before, status(4000, 4L << 30, 100L << 30))).isTrue();
        // a nearly full disk: a GiB is still a change worth telling
        assertThat(HostStatus.material(status(4000, 8L << 30, 2L << 30), status(4000, 8L << 30, 1L << 30))).isTrue();
    }

    @Test
    void aDeclaredCapacityIsWhatTheNodeOffers(@TempDir Path state) {
        HostStatus declared = new HostStatus(state, new AgentProcess.DeclaredCapacity(OptionalLong.of(1500), OptionalLong.of(3L << 30)),
                "/nonexistent/runc", Optional.empty());
        NodeStatus s = declared.measure();
        assertThat(s.capacity().milliCpu()).isEqualTo(1500);
        assertThat(s.capacity().memoryBytes()).isEqualTo(3L << 30);
        assertThat(s.capacity().freeDiskBytes()).isPositive();
        assertThat(s.health()).isEqualTo(new NodeStatus.Health("dev", "none", List.of()));
        NodeStatus machine = new HostStatus(state, AgentProcess.DeclaredCapacity.MACHINE, "/nonexistent/runc", Optional.empty()).measure();
        assertThat(machine.capacity().milliCpu()).isEqualTo(Runtime.getRuntime().availableProcessors() * 1000L);
    }
}
