package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.Resources;
import dev.knotless.executor.kubernetes.KubernetesOptions;
import dev.knotless.runner.run.request.Ceilings;
import dev.knotless.runner.run.request.RunLimits;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The ceiling flags of {@code exec} and {@code daemon} reach the run's {@link RunLimits} on every executor. */
class CeilingFlagsTest {

    @Test
    void theFlagsSetDefaultsAndMaximaOnExecAndDaemon() {
        for (String command : new String[] {"exec", "daemon"}) {
            RunLimits limits = limits(command, "--default-cpu", "500m", "--max-cpu", "4", "--default-memory", "1Gi",
                    "--max-memory", "8Gi", "--default-timeout", "30m", "--max-timeout", "2h", "--max-step-timeout", "20m");
            assertThat(limits.ceilings()).as(command).isEqualTo(new Ceilings(new Resources(500, 1L << 30),
                    new Resources(4_000, 8L << 30), Duration.ofHours(2), Duration.ofMinutes(20)));
            assertThat(limits.runTimeout()).isEqualTo(Duration.ofMinutes(30));
        }
    }

    @Test
    void withoutFlagsTheBuiltInCeilingsHold() {
        for (String command : new String[] {"exec", "daemon"}) {
            RunLimits limits = limits(command);
            assertThat(limits.ceilings()).as(command).isEqualTo(Ceilings.BUILT_IN);
            assertThat(limits.runTimeout()).isEqualTo(RunLimits.DEFAULT.runTimeout());
        }
    }

    @Test
    void oneFlagLeavesTheOthersAtTheirBuiltInValues() {
        RunLimits limits = limits("exec", "--max-memory", "8Gi");
        assertThat(limits.ceilings().maxima()).isEqualTo(new Resources(16_000, 8L << 30));
        assertThat(limits.ceilings().maxRunTimeout()).isEqualTo(Duration.ofHours(6));
        assertThat(limits.runTimeout()).isEqualTo(Duration.ofHours(1));
    }

    @Test
    void badValuesAreOneLineNamingTheFlag() {
        assertThatThrownBy(() -> limits("exec", "--max-memory", "lots"))
                .hasMessage("--max-memory: not a memory quantity: 'lots' (use 512Mi, 2Gi, 1G or bytes)");
        assertThatThrownBy(() -> limits("exec", "--default-cpu", "0"))
                .hasMessage("--default-cpu: must be more than zero, got '0'");
        assertThatThrownBy(() -> limits("daemon", "--default-memory", "16Gi", "--max-memory", "8Gi"))
                .hasMessage("the default memory 16Gi is above the maximum 8Gi");
        assertThatThrownBy(() -> limits("exec", "--default-timeout", "7h"))
                .hasMessage("the default run timeout 7h is above the maximum 6h");
    }

    @TempDir Path state;

    @Test
    void aBadFlagEndsTheCommandWithOneLine() {
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute("exec", ".", "--state-dir", state.toString(),
                "--max-memory", "8Gi", "--default-memory", "16Gi");
        assertThat(code).isNotZero();
        assertThat(err.toString().strip()).isEqualTo("knotless-run: the default memory 16Gi is above the maximum 8Gi");
    }

    @Test
    void theKubernetesRequestAndLimitFlagsStayTheExecutorsOwn() {
        CommandLine.ParseResult parsed = Main.commandLine().parseArgs("exec", ".", "--max-cpu", "4", "--cpu-limit", "3");
        KubernetesOptions o = ExecutorWiring.kubernetes(((ExecCommand) parsed.subcommand().commandSpec().userObject()).runner.kubernetes);
        assertThat(o.cpuLimit()).isEqualTo("3");
    }

    private static RunLimits limits(String command, String... flags) {
        Object user = ParsedCommand.of(command, flags);
        RunOptions options = user instanceof ExecCommand e ? e.runOptions : ((DaemonCommand) user).runOptions;
        return options.limits();
    }
}
