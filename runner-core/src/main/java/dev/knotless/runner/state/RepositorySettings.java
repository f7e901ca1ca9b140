package dev.knotless.runner.state;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.files.OwnerOnlyFiles;
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
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The configuration variables an operator sets per repository ({@code vars set}), which GitHub
 * Actions workflows read as {@code vars}: not secret (shown by {@code vars list}, never masked),
 * so kept as text, one JSON file per repository, {@code <stateDir>/variables/<sha256(repo)>.json}.
 *
 * <p>Names follow GitHub's rules: a shell identifier, not starting with {@code GITHUB_}, told apart
 * without regard to case (kept in upper case, as GitHub shows them); at most {@value #MAX_VARIABLES}
 * a repository, each value at most {@value #MAX_VALUE_BYTES} bytes, as on GitHub.
 *
 * <p>Writers change a repository's file under an exclusive lock on {@code variables/.lock}, so two
 * processes never lose each other's change; readers take none, since a file is only ever replaced
 * whole by a rename. Each read goes to the file, so a change reaches the next run without a restart.
 */
public final class RepositoryVariables {

    public static final int MAX_VARIABLES = 500;
    public static final int MAX_VALUE_BYTES = 48 * 1024;
    static final String DIRECTORY = "variables";
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final int FORMAT = 1;

    /** A repository's file, as written. */
    record RepoFile(int format, String repo, SortedMap<String, String> variables) {
        RepoFile {
            variables = variables == null ? new TreeMap<>() : new TreeMap<>(variables);
        }
    }

    private final Path directory;
    private final ObjectMapper json = new ObjectMapper();

    private RepositoryVariables(Path directory) {
        this.directory = directory;
    }

    /** The variables kept under {@code stateDir}. */
    public static RepositoryVariables in(Path stateDir) {
        return new RepositoryVariables(stateDir.resolve(DIRECTORY));
    }

    /** {@code repo}'s variables by name; empty when it has none. */
    public Map<String, String> of(String repo) throws IOException {
        return read(repo).variables();
    }

    /**
     * Sets {@code name} of {@code repo} to {@code value}.
     *
     * @return the name as kept (upper case)
     * @throws IllegalArgumentException for a name or value GitHub would refuse, or one variable too many
     */
    public String put(String repo, String name, String value) throws IOException {
        String kept = checkName(name);
        if (value.getBytes(StandardCharsets.UTF_8).length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException("variable " + kept + " is longer than " + MAX_VALUE_BYTES / 1024 + " KiB");
        }
        return change(repo, variables -> {
            if (!variables.containsKey(kept) && variables.size() >= MAX_VARIABLES) {
                throw new IllegalArgumentException(repo + " has " + MAX_VARIABLES + " variables already, the most it may have");
            }
            variables.put(kept, value);
            return kept;
        });
    }

    /** Removes {@code name} of {@code repo}; false when it had none of that name. */
    public boolean remove(String repo, String name) throws IOException {
        String kept = name.toUpperCase(Locale.ROOT);
        return change(repo, variables -> variables.remove(kept) != null);
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

    private interface Change<T> {
        T apply(SortedMap<String, String> variables) throws IOException;
    }

    private synchronized <T> T change(String repo, Change<T> change) throws IOException {
        Files.createDirectories(directory, OwnerOnlyFiles.DIRECTORY);
        try (FileChannel lockFile = FileChannel.open(directory.resolve(".lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE);
                FileLock ignored = lockFile.lock()) {
            SortedMap<String, String> variables = new TreeMap<>(read(repo).variables());
            T result = change.apply(variables);
            OwnerOnlyFiles.write(file(repo), json.writeValueAsBytes(new RepoFile(FORMAT, repo, variables)));
            return result;
        }
    }

    private RepoFile read(String repo) throws IOException {
        RepoFile file;
        try {
            file = json.readValue(Files.readAllBytes(file(repo)), RepoFile.class);
        } catch (NoSuchFileException e) {
            return new RepoFile(FORMAT, repo, new TreeMap<>());
        }
        if (file.format() != FORMAT || !repo.equals(file.repo())) {
            throw new IOException(file(repo) + " is not " + repo + "'s variables in format " + FORMAT);
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
