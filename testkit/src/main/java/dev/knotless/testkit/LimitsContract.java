package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Resources;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The contract's resource limits: a session started with CPU and memory runs under them for real,
 * as the kernel sees it from inside the run (its own cgroup, v2 or v1), not only as a field of the
 * executor's spec. The runner's ceilings give every untrusted run both, so this is what holds a
 * stranger's workflow to its share. Part of {@link ExecutorContract}, which every executor's
 * integration test extends.
 */
public interface LimitsContract {

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    /** Prints {@code memory BYTES} and {@code cpu QUOTA PERIOD} from the cgroup the step is in. */
    String READ_CGROUP = """
            if [ -f /sys/fs/cgroup/memory.max ]; then
              echo "memory $(cat /sys/fs/cgroup/memory.max)"
              echo "cpu $(cat /sys/fs/cgroup/cpu.max)"
            else
              echo "memory $(cat /sys/fs/cgroup/memory/memory.limit_in_bytes)"
              echo "cpu $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"
            fi
            """;

    @Test
    default void anUntrustedSessionRunsUnderTheCpuAndMemoryLimitsItWasStartedWith() throws Exception {
        long memory = 96L << 20;
        Session s = contract().open(contract().spec().trust(Trust.UNTRUSTED).resources(new Resources(500, memory)).build());
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(ContractSupport.sh("cgroup", READ_CGROUP), out, StopSignal.none());

        assertThat(outcome).as(out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        Map<String, String> seen = out.stdout().lines().map(l -> l.split(" ", 2))
                .collect(Collectors.toMap(kv -> kv[0], kv -> kv[1]));
        assertThat(seen.get("memory")).as("the run's memory limit in bytes").isEqualTo(String.valueOf(memory));
        String[] cpu = seen.get("cpu").split(" ");
        assertThat(cpu[0]).as("a CPU quota is set").isNotIn("max", "-1");
        assertThat(Double.parseDouble(cpu[0]) / Double.parseDouble(cpu[1])).as("CPU quota over period, in cores")
                .isEqualTo(0.5);
    }
}
