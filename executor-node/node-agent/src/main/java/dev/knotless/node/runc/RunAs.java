package dev.knotless.node.runc;

import org.jspecify.annotations.Nullable;

/** A numeric user and group inside the container ({@code --run-as UID:GID}, or the image's user resolved). */
public record RunAs(long uid, long gid) {

    public static final RunAs ROOT = new RunAs(0, 0);

    public RunAs {
        if (uid < 0 || uid > 0xFFFF_FFFEL || gid < 0 || gid > 0xFFFF_FFFEL) {
            throw new IllegalArgumentException("uid and gid must be between 0 and 4294967294, got " + uid + ":" + gid);
        }
    }

    /** Parses {@code UID:GID}, both numeric. */
    public static RunAs parse(@Nullable String value) {
        String[] parts = value == null ? new String[0] : value.split(":", -1);
        if (parts.length != 2 || !parts[0].matches("[0-9]{1,10}") || !parts[1].matches("[0-9]{1,10}")) {
            throw new IllegalArgumentException("--run-as wants UID:GID (numbers), got '" + value + "'");
        }
        return new RunAs(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
    }

    @Override
    public String toString() {
        return uid + ":" + gid;
    }
}
