package dev.knotless.secrets;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import java.util.stream.Collectors;

/**
 * Decides which of the secrets a step asks for it gets. Push runs get every requested secret the
 * repository has; pull-request and merge-queue batch runs get none, since their code is not yet
 * reviewed onto a branch (architecture.md, trust table).
 *
 * <p>What is granted and withheld is reported by name only; the result's {@code toString()} and
 * {@link Granted#describe()} never show a value.
 */
public final class Grants {

    /** Why a secret was withheld: the run kind gets no secrets. */
    public static final String NO_SECRETS_FOR_RUN = "pull and batch runs get no secrets";
    /** Why a secret was withheld: the repository does not have it. */
    public static final String NOT_SET = "not set for this repository";
    /** Why a secret was withheld: the name cannot be a secret's name. */
    public static final String NOT_A_NAME = "not a valid secret name";

    private Grants() {}

    /**
     * The secrets a step gets, in the order requested (duplicates dropped).
     *
     * @param requested the names the step asks for
     * @param repo the repository the run belongs to
     * @param store the runner's store
     * @param runMayHaveSecrets true for push runs; false for pull and batch runs
     * @throws SecretStoreException when the store cannot be read; a broken store fails the run
     *     rather than silently withholding
     */
    public static Granted grant(List<String> requested, String repo, SecretStore store, boolean runMayHaveSecrets) {
        return grant(requested, repo, null, store, runMayHaveSecrets);
    }

    /**
     * Where a deployment environment's secrets are kept in a {@link SecretStore}: apart from the
     * repository's, under a name no repository has (a NUL cannot be in a path or a URL).
     */
    public static String environmentScope(String repo, String environment) {
        return repo + "\0environment:" + environment;
    }

    /**
     * As {@link #grant(List, String, SecretStore, boolean)}, for a run in the deployment environment
     * {@code environment} (null: none): a secret of the environment over the repository's of the
     * same name, as GitHub grants them.
     */
    public static Granted grant(List<String> requested, String repo, @Nullable String environment, SecretStore store,
            boolean runMayHaveSecrets) {
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(store, "store");
        List<Secret> secrets = new ArrayList<>();
        List<Withheld> withheld = new ArrayList<>();
        for (String name : new LinkedHashSet<>(requested)) {
            if (!Secret.isValidName(name)) {
                withheld.add(new Withheld(name, NOT_A_NAME));
            } else if (!runMayHaveSecrets) {
                withheld.add(new Withheld(name, NO_SECRETS_FOR_RUN));
            } else {
                Optional<Secret> secret = environment == null ? Optional.empty()
                        : store.get(environmentScope(repo, environment), name);
                if (secret.isEmpty()) {
                    secret = store.get(repo, name);
                }
                if (secret.isPresent()) {
                    secrets.add(secret.get());
                } else {
                    withheld.add(new Withheld(name, NOT_SET));
                }
            }
        }
        return new Granted(secrets, withheld);
    }

    /**
     * The outcome of {@link #grant}.
     *
     * @param secrets what the step gets, in request order
     * @param withheld what it asked for and does not get, each with the reason
     */
    public record Granted(List<Secret> secrets, List<Withheld> withheld) {

        public static final Granted NONE = new Granted(List.of(), List.of());

        public Granted {
            secrets = List.copyOf(secrets);
            withheld = List.copyOf(withheld);
        }

        /** Name to value, in request order: what goes into the step's environment. */
        public Map<String, String> environment() {
            Map<String, String> environment = new LinkedHashMap<>();
            for (Secret secret : secrets) {
                environment.put(secret.name(), secret.value());
            }
            return Collections.unmodifiableMap(environment);
        }

        /** The granted values, for {@link Masker#of}. */
        public List<String> values() {
            return secrets.stream().map(Secret::value).toList();
        }

        /** Names of granted secrets too short for the masker to hide ({@link Masker#isMaskable}). */
        public List<String> unmaskable() {
            return secrets.stream().filter(s -> !Masker.isMaskable(s.value())).map(Secret::name).toList();
        }

        /**
         * One log line, names only: {@code secrets: granted A, B; withheld C (not set for this
         * repository)}, plus a warning naming granted secrets too short to mask; empty when
         * nothing was requested.
         */
        public String describe() {
            if (secrets.isEmpty() && withheld.isEmpty()) {
                return "";
            }
            StringBuilder line = new StringBuilder("secrets:");
            if (!secrets.isEmpty()) {
                line.append(" granted ").append(secrets.stream().map(Secret::name).collect(Collectors.joining(", ")));
            }
            if (!withheld.isEmpty()) {
                line.append(secrets.isEmpty() ? " " : "; ").append("withheld ")
                        .append(withheld.stream().map(Withheld::toString).collect(Collectors.joining(", ")));
            }
            List<String> unmaskable = unmaskable();
            if (!unmaskable.isEmpty()) {
                line.append("; not masked in logs (shorter than ").append(Masker.MIN_LENGTH).append(" characters): ")
                        .append(String.join(", ", unmaskable));
            }
            return line.toString();
        }

        @Override
        public String toString() {
            return "Granted[" + describe() + "]";
        }
    }

    /** A requested secret the step does not get, and why. */
    public record Withheld(String name, String reason) {
        public Withheld {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public String toString() {
            return name + " (" + reason + ")";
        }
    }
}
