package dev.knotless.plan;

/**
 * What only the run knows, which a front-end's {@link RunValue} tree names without knowing its
 * value: facts of the run's request, and what its steps have done so far. The names are the
 * runner's, not a dialect's; a front-end maps its own onto them ({@code github.sha} is {@link
 * #COMMIT}).
 */
public enum RunFact {
    /** The commit's full sha. */
    COMMIT,
    /** The full ref the commit was reached by ({@code refs/heads/main}), or the sha. */
    REF,
    /** The ref's short name ({@code main}, {@code v1.2}); the sha when the ref is one. */
    REF_NAME,
    /** {@code branch} or {@code tag}; empty for any other ref. */
    REF_TYPE,
    /** The event that made the run, by the runner's wire name ({@code push}, {@code pull}, {@code manual}, ...). */
    EVENT,
    /**
     * The repository as {@code OWNER/NAME}: the last two parts of where it is cloned from ({@code
     * https://forge.example/acme/app.git} is {@code acme/app}, a local {@code /srv/git/app} is {@code
     * git/app}).
     */
    REPOSITORY,
    /** The repository's owner: the part of {@link #REPOSITORY} before its {@code /}. */
    REPOSITORY_OWNER,
    /** The repository's own name: the part of {@link #REPOSITORY} after its {@code /}. */
    REPOSITORY_NAME,
    /** The forge's address: the scheme and host of an http(s) clone URL; GitHub's for any other. */
    SERVER_URL,
    /** The repository's default branch, by its short name ({@code main}). */
    DEFAULT_BRANCH,
    /** The run's id, as its check carries it. */
    RUN_ID,
    /** The runner host's architecture: {@code X64}, {@code ARM64}, ... */
    ARCH,
    /** The run's verdict so far: {@code success}, {@code failure} or {@code cancelled}. */
    STATUS,
    /** The step's variables as it starts: the run's, those handed back by the steps before, its own. */
    ENVIRONMENT,
    /** The secrets the step was granted, by name; one withheld is absent, so it reads as empty. */
    SECRETS,
    /**
     * The repository's configuration variables, by name, as the operator set them; an untrusted run
     * has none, and one not set is absent, so it reads as empty.
     */
    CONFIGURATION
}
