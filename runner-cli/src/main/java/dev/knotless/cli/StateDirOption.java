package dev.knotless.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code --state-dir}: where the runner keeps checks, logs, outputs and mirrors. It holds the
 * secret store's key, cache layers and every run's log, so it is the runner user's alone: made
 * 0700, and tightened to 0700 when the runner's user owns it with more. Its own entries do not
 * lean on that alone, since an operator's {@code chmod}, a backup or a shared directory can open it
 * again: the directories the runner keeps in it are made (or tightened to) 0700, and the state
 * database 0600 (runner-core's {@code StateDatabase}). A state directory others can still read is
 * one warning line at start.
 */
final class StateDirOption {

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OTHERS = EnumSet.of(PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ, PosixFilePermission.OTHERS_EXECUTE);
    /** The directories the runner keeps in its state directory. */
    static final List<String> DIRECTORIES = List.of("cache", "checks", "forge", "logs", "mirrors", "outputs", "runners");

    @Option(names = "--state-dir", paramLabel = "DIR",
            defaultValue = "${env:KNOTLESS_RUN_STATE:-${sys:user.home}/.local/state/knotless-run}",
            description = "Runner state: checks, logs, outputs, mirrors (default: $KNOTLESS_RUN_STATE or ~/.local/state/knotless-run).")
    Path stateDir;

    @Spec(Spec.Target.MIXEE)
    @Nullable CommandSpec command;

    private boolean prepared;

    Path stateDir() {
        Path dir = stateDir.toAbsolutePath().normalize();
        if (!prepared) {
            ownerOnly(dir);
            DIRECTORIES.forEach(d -> ownerOnly(dir.resolve(d)));
            readableByOthers(dir).ifPresent(this::warn);
            prepared = true;
        }
        return dir;
    }

    /** Why {@code dir} is open to others (its mode), when it is. */
    static Optional<String> readableByOthers(Path dir) {
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(dir);
            if (mode.stream().noneMatch(OTHERS::contains)) {
                return Optional.empty();
            }
            return Optional.of("knotless-run: warning: the state directory " + dir + " is open to others (mode "
                    + PosixFilePermissions.toString(mode) + "); what the runner keeps in it is its user's alone, but the"
                    + " names are not: chmod 0700 it, or have the service that owns it set that mode");
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private void warn(String line) {
        PrintWriter err = command != null ? command.commandLine().getErr() : new PrintWriter(System.err, true);
        err.println(line);
        err.flush();
    }

    static void ownerOnly(Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
                return;
            }
            if (Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS) && !Files.getPosixFilePermissions(dir).equals(OWNER_ONLY)
                    && Files.getOwner(dir).getName().equals(System.getProperty("user.name"))) {
                Files.setPosixFilePermissions(dir, OWNER_ONLY);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the state directory " + dir + ": " + e.getMessage(), e);
        }
    }
}
