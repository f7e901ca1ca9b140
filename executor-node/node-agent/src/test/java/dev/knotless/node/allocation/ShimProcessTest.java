package dev.knotless.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.runc.ExecShim;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A recorded shim is live only if its pid runs and started at the recorded time (not a reused pid). */
class ShimProcessTest {

    @TempDir
    Path dir;

    @Test
    void aRecordIsLiveOnlyForTheSamePidAndStartTime() throws Exception {
        ExecShim.StepFiles files = new ExecShim.StepFiles(dir);
        long pid = ProcessHandle.current().pid();
        String started = ShimProcess.startTime(pid).orElseThrow();

        Files.writeString(files.record(), pid + " " + started + "\n");
        assertThat(ShimProcess.live(files)).map(ShimProcess::pid).contains(pid);

        Files.writeString(files.record(), pid + " " + (Long.parseLong(started) + 1) + "\n");
        assertThat(ShimProcess.live(files)).as("the pid now belongs to another process").isEmpty();

        Files.writeString(files.record(), Long.MAX_VALUE + " " + started + "\n");
        assertThat(ShimProcess.live(files)).isEmpty();

        Files.writeString(files.record(), "torn");
        assertThat(ShimProcess.live(files)).isEmpty();
        Files.delete(files.record());
        assertThat(ShimProcess.live(files)).isEmpty();
    }
}
