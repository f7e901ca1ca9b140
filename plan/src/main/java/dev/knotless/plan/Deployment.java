package dev.knotless.plan;

import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The deployment environment a workflow runs in (GitHub's job {@code environment}): a name the
 * operator declares per repository, with the branches that may deploy to it and its own variables
 * and secrets, and the address it deploys to, as the file says it.
 *
 * @param name as the file gives it: letters, digits, {@code _ - .} and spaces, at most 255
 * @param url where the deployment is reachable, as written; null when not given
 */
public record Deployment(String name, @Nullable String url) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\- ]{1,255}");

    public Deployment {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches() || name.isBlank()) {
            throw new IllegalArgumentException("environment name '" + name + "': letters, digits, '_', '-', '.' and spaces,"
                    + " at most 255");
        }
    }
}
