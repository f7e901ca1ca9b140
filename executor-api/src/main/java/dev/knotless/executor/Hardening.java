package dev.knotless.executor;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How a run's environment is locked down: one record, and one {@link #DEFAULT}, for every executor.
 * Each executor maps it to its own spec (Docker's {@code HostConfig}, a pod's security context,
 * runc's {@code config.json}); the decision behind the default is in docs/design/executors.md.
 *
 * @param capabilities Linux capabilities given back after every one is dropped, by their names
 *     without {@code CAP_} ({@code CHOWN}), in a fixed order
 * @param noNewPrivileges no process of the run gains privileges through {@code execve} (set-uid
 *     binaries, file capabilities)
 * @param pidsLimit at most this many processes in the run at once
 * @param readOnlyPaths paths inside the run that no process may write, whatever its capabilities
 * @param user who PID 1 and every step run as
 */
public record Hardening(List<String> capabilities, boolean noNewPrivileges, long pidsLimit, List<String> readOnlyPaths,
        User user) {

    // before DEFAULT: static fields are initialized in order, and DEFAULT's constructor uses it
    private static final Pattern CAPABILITY = Pattern.compile("[A-Z][A-Z_]*");

    /**
     * What a step installing packages as root needs: ownership and mode changes of files it does
     * not own ({@code CHOWN}, {@code DAC_OVERRIDE}, {@code FOWNER}, {@code FSETID}), dropping to
     * another user ({@code SETUID}, {@code SETGID}: apt's sandbox user, {@code su}), and signals to
     * processes of other users ({@code KILL}).
     */
    public static final List<String> PACKAGE_INSTALL_CAPABILITIES =
            List.of("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL");
    /** The kernel's interfaces a run must not change; also what Docker and runc's defaults make read-only. */
    public static final List<String> KERNEL_READ_ONLY_PATHS =
            List.of("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger");
    public static final long DEFAULT_PIDS_LIMIT = 256;

    /** Every executor's default: the seven package-install capabilities under no-new-privileges. */
    public static final Hardening DEFAULT = new Hardening(PACKAGE_INSTALL_CAPABILITIES, true, DEFAULT_PIDS_LIMIT,
            KERNEL_READ_ONLY_PATHS, User.IMAGE_DEFAULT);

    public Hardening {
        capabilities = List.copyOf(capabilities);
        for (String capability : capabilities) {
            if (!CAPABILITY.matcher(capability).matches() || capability.startsWith("CAP_")) {
                throw new IllegalArgumentException("not a capability name (as CHOWN, without CAP_): '" + capability + "'");
            }
        }
        if (pidsLimit < 1) {
            throw new IllegalArgumentException("pidsLimit must be at least 1, was " + pidsLimit);
        }
        readOnlyPaths = List.copyOf(readOnlyPaths);
        for (String path : readOnlyPaths) {
            if (!path.equals(RunLayout.absolute(path))) {
                throw new IllegalArgumentException("a read-only path must be plain and absolute: '" + path + "'");
            }
        }
        Objects.requireNonNull(user, "user");
    }

    public Hardening withCapabilities(List<String> value) {
        return new Hardening(value, noNewPrivileges, pidsLimit, readOnlyPaths, user);
    }

    public Hardening withUser(User value) {
        return new Hardening(capabilities, noNewPrivileges, pidsLimit, readOnlyPaths, value);
    }

    /** Who the run's processes are. */
    public sealed interface User {

        /** Whoever the image says ({@code USER}), root when it says nothing. */
        User IMAGE_DEFAULT = new ImageDefault();

        record ImageDefault() implements User {}

        /** These numeric ids, whatever the image says. */
        record Ids(long uid, long gid) implements User {
            public Ids {
                if (uid < 0 || gid < 0) {
                    throw new IllegalArgumentException("uid and gid cannot be negative");
                }
            }
        }
    }
}
