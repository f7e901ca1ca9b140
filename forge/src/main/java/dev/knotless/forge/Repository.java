package dev.knotless.forge;

import dev.knotless.executor.RunnerId;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A forge's record of one repository: where it is cloned from and which runners watch it.
 *
 * @param name {@code owner/name}; each part starts with a letter or digit and holds only letters,
 *     digits, {@code .}, {@code _} and {@code -}
 * @param cloneUrl what {@code git} clones: a URL or an absolute path
 * @param defaultBranch a branch name such as {@code main} (not {@code refs/heads/main})
 * @param runners the ids of the runners that watch it, in order; the order picks the lander
 * @param mayPush those of {@code runners} that may push to it (land merge-queue batches)
 */
public record Repository(String name, String cloneUrl, String defaultBranch, List<String> runners, List<String> mayPush) {

    private static final Pattern PART = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");

    public Repository {
        checkName(name);
        Objects.requireNonNull(cloneUrl, "cloneUrl");
        if (cloneUrl.isBlank() || cloneUrl.startsWith("-") || cloneUrl.chars().anyMatch(c -> c < ' ' || c == 0x7f)) {
            throw new IllegalArgumentException("repository " + name + ": clone URL '" + cloneUrl
                    + "' must be a URL or path, not empty, not starting with '-'");
        }
        Objects.requireNonNull(defaultBranch, "defaultBranch");
        if (defaultBranch.isBlank() || defaultBranch.startsWith("refs/") || defaultBranch.startsWith("-")
                || defaultBranch.chars().anyMatch(c -> c <= ' ' || c == 0x7f || "~^:?*[\\".indexOf(c) >= 0)
                || defaultBranch.contains("..")) {
            throw new IllegalArgumentException("repository " + name + ": default branch '" + defaultBranch
                    + "' is not a branch name (give 'main', not 'refs/heads/main')");
        }
        runners = List.copyOf(runners);
        mayPush = List.copyOf(mayPush);
        Set<String> seen = new HashSet<>();
        for (String runner : runners) {
            try {
                RunnerId.check(runner);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("repository " + name + ": " + e.getMessage(), e);
            }
            if (!seen.add(runner)) {
                throw new IllegalArgumentException("repository " + name + ": runner " + runner + " is named twice");
            }
        }
        for (String pusher : mayPush) {
            if (!runners.contains(pusher)) {
                throw new IllegalArgumentException("repository " + name + ": runner " + pusher
                        + " may push but is not one of its runners " + runners);
            }
        }
        if (new HashSet<>(mayPush).size() != mayPush.size()) {
            throw new IllegalArgumentException("repository " + name + ": a runner is named twice in may-push " + mayPush);
        }
    }

    /**
     * Checks an {@code owner/name} repository name.
     *
     * @throws IllegalArgumentException saying what a name must look like
     */
    public static String checkName(String name) {
        Objects.requireNonNull(name, "name");
        int slash = name.indexOf('/');
        if (slash < 0 || !PART.matcher(name.substring(0, slash)).matches()
                || !PART.matcher(name.substring(slash + 1)).matches()) {
            throw new IllegalArgumentException("repository name '" + name + "' must be owner/name, each part "
                    + "letters, digits, '.', '_' or '-' and starting with a letter or digit");
        }
        return name;
    }

    /**
     * Checks a runner id as records hold them: {@link RunnerId}'s grammar, label-like ids and DIDs.
     *
     * @throws IllegalArgumentException saying what an id must look like
     */
    public static String checkRunnerId(String id) {
        return RunnerId.check(id);
    }

    /** {@code refs/heads/<default branch>}. */
    public String defaultRef() {
        return "refs/heads/" + defaultBranch;
    }
}
