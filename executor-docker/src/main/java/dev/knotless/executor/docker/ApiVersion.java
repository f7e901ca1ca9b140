package dev.knotless.executor.docker;

/**
 * A Docker Engine API version such as {@code 1.41}, and how one is chosen for a daemon.
 *
 * <p>The client speaks up to {@link #NEWEST}; it needs {@link #OLDEST} for an exec's working
 * directory. Against a daemon it uses {@code min(server max, NEWEST)}, raised to the server's
 * minimum when the daemon no longer accepts anything that old (Docker 25+ refuses below 1.24,
 * Docker 29 below 1.44).
 */
record ApiVersion(int major, int minor) implements Comparable<ApiVersion> {

    static final ApiVersion NEWEST = new ApiVersion(1, 44);
    static final ApiVersion OLDEST = new ApiVersion(1, 35);

    static ApiVersion parse(String text) {
        String s = text.trim();
        if (s.startsWith("v")) {
            s = s.substring(1);
        }
        int dot = s.indexOf('.');
        try {
            if (dot < 0) {
                return new ApiVersion(Integer.parseInt(s), 0);
            }
            return new ApiVersion(Integer.parseInt(s.substring(0, dot)), Integer.parseInt(s.substring(dot + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a Docker API version: '" + text + "'");
        }
    }

    /** The version to speak with a daemon that accepts {@code serverMin..serverMax}. */
    static ApiVersion choose(ApiVersion serverMax, ApiVersion serverMin) {
        ApiVersion v = serverMax.compareTo(NEWEST) < 0 ? serverMax : NEWEST;
        return v.compareTo(serverMin) < 0 ? serverMin : v;
    }

    @Override
    public int compareTo(ApiVersion o) {
        return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
