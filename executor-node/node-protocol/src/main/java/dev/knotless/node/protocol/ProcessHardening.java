package dev.knotless.node.protocol;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How an allocation's processes are confined, as the runner asks in a signed
 * {@link Action.CreateAllocation}: the node applies exactly this (the runner's one default for
 * every executor is {@code Hardening.DEFAULT} in {@code executor-api}; this module does not depend
 * on it, so the fields are its own).
 *
 * @param capabilities added back after all are dropped, names without {@code CAP_}
 * @param noNewPrivileges whether set-uid binaries and file capabilities are ignored
 * @param pidsLimit the most processes the allocation may hold
 * @param readOnlyPaths paths mounted read-only in the container (absolute, plain)
 * @param user {@value #IMAGE_USER} for the image's own user, else {@code UID:GID}
 */
public record ProcessHardening(List<String> capabilities, boolean noNewPrivileges, long pidsLimit,
        List<String> readOnlyPaths, String user) {

    public static final String IMAGE_USER = "image";
    private static final Pattern IDS = Pattern.compile("(\\d{1,10}):(\\d{1,10})");

    /** Linux's capabilities, as a node accepts them (anything else is refused, not ignored). */
    static final Set<String> KNOWN = Set.of("CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL",
            "SETGID", "SETUID", "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW",
            "IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT", "SYS_ADMIN",
            "SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE",
            "AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM", "BLOCK_SUSPEND",
            "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE");

    /** What the runner asks when it says nothing (a runner older than this field): the same default. */
    public static final ProcessHardening DEFAULT = new ProcessHardening(
            List.of("CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "SETUID", "SETGID", "KILL"), true, 256,
            List.of("/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"), IMAGE_USER);

    public ProcessHardening {
        capabilities = List.copyOf(capabilities);
        for (String c : capabilities) {
            if (!KNOWN.contains(c)) {
                throw new IllegalArgumentException("unknown capability '" + c + "' (names as CHOWN, without CAP_)");
            }
        }
        if (pidsLimit < 1 || pidsLimit > 1_000_000) {
            throw new IllegalArgumentException("pidsLimit must be 1..1000000, was " + pidsLimit);
        }
        readOnlyPaths = List.copyOf(readOnlyPaths);
        for (String p : readOnlyPaths) {
            if (!p.startsWith("/") || p.contains("//") || p.contains("/./") || p.contains("/../") || p.endsWith("/..")
                    || p.endsWith("/.") || p.length() > 4096 || p.chars().anyMatch(ch -> ch < 0x20)) {
                throw new IllegalArgumentException("a read-only path must be plain and absolute: '" + p + "'");
            }
        }
        if (!user.equals(IMAGE_USER) && !IDS.matcher(user).matches()) {
            throw new IllegalArgumentException("user must be '" + IMAGE_USER + "' or UID:GID, was '" + user + "'");
        }
    }

    /** The user as ids: empty for the image's own. */
    public Optional<long[]> ids() {
        Matcher m = IDS.matcher(user);
        return m.matches() ? Optional.of(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))})
                : Optional.empty();
    }
}
