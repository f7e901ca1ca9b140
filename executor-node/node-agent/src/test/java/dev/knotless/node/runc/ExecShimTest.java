package dev.knotless.node.runc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shim with a stand-in for runc (a shell script given runc's argv): what the step gets (its
 * payload on stdin, pipes for stdout and stderr, every signal at its default, a session that is
 * not the agent's) and what the shim leaves (both outputs whole, its record, {@code exit N}).
 */
class ExecShimTest {

    @TempDir
    Path dir;
    private ExecShim.StepFiles files;

    @BeforeEach
    void emptyOutputs() throws Exception {
        files = new ExecShim.StepFiles(Files.createDirectories(dir.resolve("step")));
        Files.write(files.dir().resolve("stdout"), new byte[0]);
        Files.write(files.dir().resolve("stderr"), new byte[0]);
    }

    private Process start(String script) throws Exception {
        Runc runc = new Runc(fakeRunc(script).toString(), dir.resolve("state"), Duration.ofSeconds(5));
        assumeTrue(runc.resetsSignals(), "the shim needs Perl and a known system call table");
        return runc.shim().start("a1", files, "{}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void theStepGetsItsPayloadPipesDefaultSignalsAndASessionOfItsOwnAndTheShimRecordsItsEnd() throws Exception {
        Process shim = start("""
                read -r payload; echo "payload=$payload"
                for fd in 1 2; do [ -p /proc/self/fd/$fd ] && echo "fd$fd=pipe"; done
                grep '^SigIgn' /proc/self/status
                echo "session=$(cut -d' ' -f6 /proc/$$/stat)"
                echo to-stderr >&2
                exit 3
                """);
        try (OutputStream stdin = shim.getOutputStream()) {
            stdin.write("the-payload\n".getBytes(StandardCharsets.UTF_8));
        }
        assertThat(shim.waitFor(20, TimeUnit.SECONDS)).isTrue();
        String own = Files.readString(Path.of("/proc/self/stat"));
        String agentSession = own.substring(own.lastIndexOf(')') + 2).split(" ")[3];

        String stdout = Files.readString(files.dir().resolve("stdout"));
        assertThat(stdout).contains("payload=the-payload\n", "fd1=pipe\n", "fd2=pipe\n")
                .containsPattern("SigIgn:\\s*0+\\n")
                .contains("session=" + shim.pid() + "\n")
                .doesNotContain("session=" + agentSession + "\n");
        assertThat(Files.readString(files.dir().resolve("stderr"))).isEqualTo("to-stderr\n");
        assertThat(Files.readString(files.status())).isEqualTo("exit 3\n");
        assertThat(Files.readString(files.record())).startsWith(shim.pid() + " ");
        assertThat(files.dir().resolve("status.tmp")).doesNotExist();
    }

    @Test
    void theShimIgnoresTermAndHupAndWaitsForEveryWriterOfTheStepsPipes() throws Exception {
        // A background child keeps stdout open after the step's process ended: its line still arrives.
        Process shim = start("(sleep 1; echo from-the-background) & echo started; exit 0");
        shim.getOutputStream().close();
        // Signalled once the step runs (it said so): the shim set itself up before it started the step.
        Path stdout = files.dir().resolve("stdout");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.readString(stdout).contains("started") && System.nanoTime() - deadline < 0) {
            Thread.sleep(20);
        }
        assertThat(Files.readString(stdout)).as("the step started within 30 s").contains("started");
        shim.destroy();
        new ProcessBuilder("kill", "-HUP", Long.toString(shim.pid())).start().waitFor();
        assertThat(shim.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(shim.exitValue()).isZero();
        assertThat(Files.readString(files.dir().resolve("stdout"))).isEqualTo("started\nfrom-the-background\n");
        assertThat(Files.readString(files.status())).isEqualTo("exit 0\n");
    }

    /** A script standing in for runc: it ignores runc's argv and runs {@code script}. */
    private Path fakeRunc(String script) throws Exception {
        Path file = dir.resolve("fake-runc");
        Files.writeString(file, "#!/bin/sh\n" + script);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
        return file;
    }
}
