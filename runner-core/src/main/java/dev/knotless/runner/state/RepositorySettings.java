package dev.knotless.runner.state;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.executor.Trust;
import dev.knotless.files.OwnerOnlyFiles;
import dev.knotless.plan.Deployment;
import dev.knotless.runner.run.request.DeclaredEnvironment;
import dev.knotless.runner.run.request.RunRequest;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What an operator sets per repository beside its secrets: its configuration variables ({@code
 * vars set}), which GitHub Actions workflows read as {@code vars}, and its deployment environments
 * ({@code environments add}), each with the branches that may deploy to it and variables of its
 * own, which a job that names the environment reads over the repository's. Not secret (shown by
 * {@code vars list}, never masked), so kept as text, one JSON file per repository, {@code
 * <stateDir>/settings/<sha256(repo)>.json}.
 *
 * <p>Variable names follow GitHub's rules: a shell identifier, not starting with {@code GITHUB_},
 * told apart without regard to case (kept in upper case, as GitHub shows them); at most {@value
 * #MAX_VARIABLES} a repository and {@value #MAX_ENVIRONMENT_VARIABLES} an environment, each value at
 * most {@value #MAX_VALUE_BYTES} bytes, as on GitHub.
 *
 * <p>Writers change a repository's file under an exclusive lock on {@code settings/.lock}, so two
 * processes never lose each other's change; readers take none, since a file is only ever replaced
 * whole by a rename. Each read goes to the file, so a change reaches the next run without a restart.
 */
public final class RepositorySettings {

    public static final int MAX_VARIABLES = 500;
    public static final int MAX_ENVIRONMENT_VARIABLES = 100;
    public static final int MAX_ENVIRONMENTS = 100;
    public static final int MAX_VALUE_BYTES = 48 * 1024;
    static final String DIRECTORY = "settings";
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Pattern ENVIRONMENT = Pattern.compile("[A-Za-z0-9_.\\- ]{1,255}");
    private static final int FORMAT = 1;

    /**
     * A deployment environment as declared.
     *
     * @param branches the branch globs that may deploy to it ({@code main}, {@code release/*}); empty
     *     for every branch
     * @param variables its own variables, read over the repository's
     */
    public record Environment(List<String> branches, SortedMap<String, String> variables) {
        public Environment {
            branches = branches == null ? List.of() : List.copyOf(branches);
            variables = variables == null ? new TreeMap<>() : new TreeMap<>(variables);
        }
    }

    /** A repository's file, as written. */
    record RepoFile(int format, String repo, SortedMap<String, String> variables, SortedMap<String, Environment> environments) {
        RepoFile {
            variables = variables == null ? new TreeMap<>() : new TreeMap<>(variables);
            environments = environments == null ? new TreeMap<>() : new TreeMap<>(environments);
        }
    }

    private final Path directory;
    private final ObjectMapper json = new ObjectMapper();

    private RepositorySettings(Path directory) {
        this.directory = directory;
    }

    /** The settings kept under {@code stateDir}. */
    public static RepositorySettings in(Path stateDir) {
        return new RepositorySettings(stateDir.resolve(DIRECTORY));
    }

    /** {@code repo}'s variables by name; empty when it has none. */
    public Map<String, String> of(String repo) throws IOException {
        return read(repo).variables();
    }

    /**
     * The variables of {@code repo}'s declared {@code environment} (null: the repository's own).
     *
     * @throws IllegalArgumentException when the repository declared no such environment
     */
    public Map<String, String> of(String repo, @Nullable String environment) throws IOException {
        return variablesOf(read(repo), repo, environment);
    }

    /** {@code repo}'s deployment environments by name; empty when it declared none. */
    public Map<String, Environment> environments(String repo) throws IOException {
        return read(repo).environments();
    }

    /**
     * {@code request} as its repository's settings make it: the repository's variables as its
     * configuration, and, when its workflow names a deployment environment the repository declared,
     * that environment with its variables over them. An untrusted run reads no variable (GitHub
     * passes none to a fork's pull request), though its environment's rules still apply to it.
     */
    public RunRequest applyTo(RunRequest request) throws IOException {
        RepoFile file = read(request.repo());
        RunRequest configured = request.withConfiguration(request.trust() == Trust.TRUSTED ? file.variables() : Map.of());
        Deployment deployment = request.workflow().deployment();
        Environment declared = deployment == null ? null : file.environments().get(deployment.name());
        return declared == null ? configured
                : configured.inEnvironment(new DeclaredEnvironment(deployment.name(), declared.branches()), declared.variables());
    }

    /**
     * Sets {@code name} of {@code repo} to {@code value}: a variable of the repository, or with
     * {@code environment}, of that declared environment.
     *
     * @return the name as kept (upper case)
     * @throws IllegalArgumentException for a name or value GitHub would refuse, one variable too
     *     many, or an environment not declared
     */
    public String put(String repo, @Nullable String environment, String name, String value) throws IOException {
        String kept = checkName(name);
        if (value.getBytes(StandardCharsets.UTF_8).length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("variable " + kept + " is longer than " + MAX_VALUE_BYTES / 1024 + " KiB");
        }
        return change(repo, file -> {
            SortedMap<String, String> variables = variablesOf(file, repo, environment);
            int most = environment == null ? MAX_VARIABLES : MAX_ENVIRONMENT_VARIABLES;
            if (!variables.containsKey(kept) && variables.size() >= most) {
                throw new IllegalArgumentException((environment == null ? repo : "environment " + environment) + " has "
                        + most + " variables already, the most it may have");
            }
            variables.put(kept, value);
            return kept;
        });
    }

    /** Sets {@code name} of {@code repo}'s own variables. */
    public String put(String repo, String name, String value) throws IOException {
        return put(repo, null, name, value);
    }

    /** Removes {@code name} of {@code repo} (of its {@code environment}, when given); false when there was none. */
    public boolean remove(String repo, @Nullable String environment, String name) throws IOException {
        String kept = name.toUpperCase(Locale.ROOT);
        return change(repo, file -> variablesOf(file, repo, environment).remove(kept) != null);
    }

    /** Removes {@code name} of {@code repo}'s own variables; false when there was none. */
    public boolean remove(String repo, String name) throws IOException {
        return remove(repo, null, name);
    }

    /**
     * Declares {@code environment} for {@code repo}, deployed to from {@code branches} (globs; none
     * for every branch); declared again, its branches are replaced and its variables kept.
     */
    public void declare(String repo, String environment, List<String> branches) throws IOException {
        checkEnvironment(environment);
        for (String branch : branches) {
            if (branch.isBlank() || branch.length() > 255) {
                throw new IllegalArgumentException("branch pattern '" + branch + "' is empty or longer than 255");
            }
        }
        change(repo, file -> {
            Environment before = file.environments().get(environment);
            if (before == null && file.environments().size() >= MAX_ENVIRONMENTS) {
                throw new IllegalArgumentException(repo + " has " + MAX_ENVIRONMENTS + " environments already, the most"
                        + " it may have");
            }
            file.environments().put(environment, new Environment(branches, before == null ? null : before.variables()));
            return null;
        });
    }

    /** Removes {@code environment} of {@code repo} with its variables; false when it was not declared. */
    public boolean undeclare(String repo, String environment) throws IOException {
        return change(repo, file -> file.environments().remove(environment) != null);
    }

    /**
     * {@code name} as kept, upper case.
     *
     * @throws IllegalArgumentException unless it is a shell identifier outside GitHub's own names
     */
    public static String checkName(String name) {
        if (!NAME.matcher(name).matches() || name.length() > 200) {
            throw new IllegalArgumentException("variable name '" + name.replaceAll("\\P{Print}", "?")
                    + "' is not a name: letters, digits and _ (not first a digit), at most 200");
        }
        String kept = name.toUpperCase(Locale.ROOT);
        if (kept.startsWith("GITHUB_")) {
            throw new IllegalArgumentException("variable name '" + name + "' starts with GITHUB_, which GitHub keeps for its own");
        }
        return kept;
    }

    /** @throws IllegalArgumentException unless {@code environment} is a name GitHub takes for one */
    public static void checkEnvironment(String environment) {
        if (!ENVIRONMENT.matcher(environment).matches() || environment.isBlank()) {
            throw new IllegalArgumentException("environment name '" + environment.replaceAll("\\P{Print}", "?")
                    + "': letters, digits, '_', '-', '.' and spaces, at most 255");
        }
    }

    private static SortedMap<String, String> variablesOf(RepoFile file, String repo, @Nullable String environment) {
        if (environment == null) {
            return file.variables();
        }
        Environment declared = file.environments().get(environment);
        if (declared == null) {
            throw new IllegalArgumentException("environment " + environment + " is not declared for " + repo
                    + " (knotless-run environments add)");
        }
        return declared.variables();
    }

    private interface Change<T> {
        T apply(RepoFile file) throws IOException;
    }

    private synchronized <T> T change(String repo, Change<T> change) throws IOException {
        Files.createDirectories(directory, OwnerOnlyFiles.DIRECTORY);
        try (FileChannel lockFile = FileChannel.open(directory.resolve(".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
                FileLock ignored = lockFile.lock()) {
            RepoFile file = read(repo);
            T result = change.apply(file);
            OwnerOnlyFiles.write(file(repo), json.writeValueAsBytes(file));
            return result;
        }
    }

    private RepoFile read(String repo) throws IOException {
        RepoFile file;
        try {
            file = json.readValue(Files.readAllBytes(file(repo)), RepoFile.class);
        } catch (NoSuchFileException e) {
            return new RepoFile(FORMAT, repo, null, null);
        }
        if (file.format() != FORMAT || !repo.equals(file.repo())) {
            throw new IOException(file(repo) + " is not " + repo + "'s settings in format " + FORMAT);
        }
        return file;
    }

    private Path file(String repo) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(repo.getBytes(StandardCharsets.UTF_8));
            return directory.resolve(HexFormat.of().formatHex(digest) + ".json");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
