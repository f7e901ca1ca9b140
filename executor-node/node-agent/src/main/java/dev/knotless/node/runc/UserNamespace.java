package dev.knotless.node.runc;

import org.jspecify.annotations.Nullable;

/**
 * The node's {@code --user-namespace} range: container ids {@code 0..size-1} map to host ids
 * {@code hostUid..hostUid+size-1} (and the same for groups). The rootfs and the allocation's
 * directories must be owned by the mapped ids; whoever prepares them shifts ownership.
 */
public record UserNamespace(long hostUid, long hostGid, long size) {

    public static final long DEFAULT_SIZE = 65_536;

    public UserNamespace {
        if (hostUid < 1 || hostGid < 1) {
            throw new IllegalArgumentException("a user namespace must map to unprivileged host ids (>= 1), got "
                    + hostUid + ":" + hostGid);
        }
        if (size < 1 || hostUid + size > 0xFFFF_FFFFL || hostGid + size > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("user namespace range of " + size + " ids does not fit above "
                    + hostUid + ":" + hostGid);
        }
    }

    /** Parses {@code HOSTUID:HOSTGID[:SIZE]}. */
    public static UserNamespace parse(@Nullable String value) {
        String[] parts = value == null ? new String[0] : value.split(":", -1);
        if (parts.length < 2 || parts.length > 3 || !java.util.Arrays.stream(parts).allMatch(p -> p.matches("[0-9]{1,10}"))) {
            throw new IllegalArgumentException("--user-namespace wants HOSTUID:HOSTGID[:SIZE] (numbers), got '" + value + "'");
        }
        return new UserNamespace(Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                parts.length == 3 ? Long.parseLong(parts[2]) : DEFAULT_SIZE);
    }
}
