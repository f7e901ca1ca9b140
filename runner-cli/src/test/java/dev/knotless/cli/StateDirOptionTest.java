package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.runner.state.StateStore;
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

    /**
     * Inside the state directory, the runner's own directories and its database are its user's alone
     * whatever the directory's own mode: made so, and tightened when an older version or an operator
     * left them open.
     */
    @Test
    void itsDirectoriesAndDatabaseAreTheRunnersUsersAloneWhateverTheParentsMode() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("state"));
        Path mirrors = Files.createDirectory(dir.resolve("mirrors"));
        Files.setPosixFilePermissions(mirrors, PosixFilePermissions.fromString("rwxr-xr-x"));
        StateDirOption option = new StateDirOption();
        option.stateDir = dir;
        option.stateDir();
        for (String d : StateDirOption.DIRECTORIES) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(d)))).as(d).isEqualTo("rwx------");
        }
        try (StateStore state = StateStore.open(dir)) {
            state.runs().waitingCount(); // a write-ahead log and its index are there once it is used
        }
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            assertThat(files.filter(Files::isRegularFile).map(f -> f.getFileName() + " "
                    + PosixFilePermissions.toString(uncheckedMode(f))).toList()).isNotEmpty()
                    .allSatisfy(line -> assertThat(line).matches("runner\\.db(-wal|-shm)? rw-------"));
        }
    }

    @Test
    void aDatabaseLeftOpenIsTightenedWithItsLog() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("state"));
        try (StateStore state = StateStore.open(dir)) {
            state.runs().waitingCount();
        }
        Files.setPosixFilePermissions(dir.resolve("runner.db"), PosixFilePermissions.fromString("rw-r--r--"));
        try (StateStore state = StateStore.open(dir)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("runner.db")))).isEqualTo("rw-------");
        }
    }

    @Test
    void aStateDirectoryOthersCanReadIsOneWarning() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("state"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-x---"));
        assertThat(StateDirOption.readableByOthers(dir)).hasValueSatisfying(line -> assertThat(line)
                .startsWith("knotless-run: warning: the state directory " + dir + " is open to others (mode rwxr-x---)"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        assertThat(StateDirOption.readableByOthers(dir)).isEmpty();
    }

    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> uncheckedMode(Path f) {
        try {
            return Files.getPosixFilePermissions(f);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
