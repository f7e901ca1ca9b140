package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateDirOptionTest {

    @TempDir
    Path tmp;

    @Test
    void aNewStateDirectoryIsTheRunnersUsersAlone() throws Exception {
        StateDirOption option = new StateDirOption();
        option.stateDir = tmp.resolve("a/state");
        assertThat(option.stateDir()).isEqualTo(tmp.resolve("a/state"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("a/state")))).isEqualTo("rwx------");
    }

    @Test
    void anExistingOneOpenToOthersIsTightened() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("state"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        StateDirOption option = new StateDirOption();
        option.stateDir = dir;
        option.stateDir();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir))).isEqualTo("rwx------");
    }
}
