package dev.knotless.node.runc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A child of this JVM starts with 32 and 33 ignored (the JDK's launch); the launcher Runc puts
 * before runc gives what it runs every signal at its default.
 */
class ResetSignalsTest {

    @Test
    void whatTheLauncherRunsStartsWithNoSignalIgnored() throws Exception {
        assumeTrue(System.getProperty("os.arch").equals("amd64"), "rt_sigaction's number here is x86-64's");
        String plain = sigIgn(List.of("grep", "SigIgn", "/proc/self/status"));
        assertThat(plain).as("a JVM's child, as the agent's runc is").doesNotMatch("SigIgn:\\s*0+\\s*");
        String reset = sigIgn(List.of("perl", "-e", Runc.RESET_SIGNALS, "13", "grep", "SigIgn", "/proc/self/status"));
        assertThat(reset).matches("SigIgn:\\s*0+\\s*");
    }

    private static String sigIgn(List<String> argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }
}
