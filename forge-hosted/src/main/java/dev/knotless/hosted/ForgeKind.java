package dev.knotless.hosted;

import java.util.Locale;

/** The hosted forges the daemon speaks to; Forgejo speaks Gitea's dialect and is one with it. */
public enum ForgeKind {
    GITHUB, GITEA, GITLAB;

    /** {@code github}, {@code gitea} or {@code gitlab}: what files and paths call it. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The forge a file names: {@code github}, {@code gitea}, {@code forgejo} (Gitea's dialect) or
     * {@code gitlab}.
     *
     * @throws IllegalArgumentException naming the choices
     */
    public static ForgeKind parse(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "github" -> GITHUB;
            case "gitea", "forgejo" -> GITEA;
            case "gitlab" -> GITLAB;
            default -> throw new IllegalArgumentException("unknown forge '" + name + "' (use github, gitea, forgejo or gitlab)");
        };
    }
}
