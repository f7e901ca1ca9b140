package dev.knotless.node.image;

import org.jspecify.annotations.Nullable;

/** The node's platform, e.g. {@code linux/amd64}: the entry picked from a multi-platform index. */
public record Platform(String os, String architecture) {

    public static final Platform LINUX_AMD64 = new Platform("linux", "amd64");

    public Platform {
        if (os == null || os.isBlank() || architecture == null || architecture.isBlank()) {
            throw new IllegalArgumentException("platform needs an os and an architecture");
        }
    }

    public static Platform parse(@Nullable String value) {
        String[] parts = value == null ? new String[0] : value.split("/", -1);
        if (parts.length != 2) {
            throw new IllegalArgumentException("platform '" + value + "' is not os/architecture, e.g. linux/amd64");
        }
        return new Platform(parts[0], parts[1]);
    }

    @Override
    public String toString() {
        return os + "/" + architecture;
    }
}
