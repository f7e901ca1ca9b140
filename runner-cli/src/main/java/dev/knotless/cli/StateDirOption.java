package dev.knotless.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import picocli.CommandLine.Option;

/**
 * {@code --state-dir}: where the runner keeps checks, logs, outputs and mirrors. It holds the
 * secret store's key, cache layers and every run's log, so it is the runner user's alone: made
 * 0700, and tightened to 0700 when the runner's user owns it with more.
 */
final class StateDirOption {

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");

    @Option(names = "--state-dir", paramLabel = "DIR",
            defaultValue = "${env:KNOTLESS_RUN_STATE:-${sys:user.home}/.local/state/knotless-run}",
            description = "Runner state: checks, logs, outputs, mirrors (default: $KNOTLESS_RUN_STATE or ~/.local/state/knotless-run).")
    Path stateDir;

    private boolean prepared;

    Path stateDir() {
        Path dir = stateDir.toAbsolutePath().normalize();
        if (!prepared) {
            ownerOnly(dir);
            prepared = true;
        }
        return dir;
    }

    static void ownerOnly(Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                return;
            }
            if (Files.isDirectory(dir) && !Files.getPosixFilePermissions(dir).equals(OWNER_ONLY)
                    && Files.getOwner(dir).getName().equals(System.getProperty("user.name"))) {
                Files.setPosixFilePermissions(dir, OWNER_ONLY);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the state directory " + dir + ": " + e.getMessage(), e);
        }
    }
}
