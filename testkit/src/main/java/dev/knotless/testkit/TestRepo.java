package dev.knotless.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real git repository made for a test in a directory of its own, driven through the git command
 * line: files, workflow files, modes and links written into the work tree, commits, and any other
 * git command. Git runs isolated from the machine's configuration (a signing key or a hook of the
 * host's would otherwise change what a test makes), always as the same author and committer.
 */
public final class TestRepo {

    public final Path dir;

    /** Makes {@code dir} (and its parents) and a repository in it, on branch {@code main}. */
    public TestRepo(Path dir) throws IOException {
        this(dir, false);
    }

    private TestRepo(Path dir, boolean bare) throws IOException {
        this.dir = dir;
        Files.createDirectories(dir);
        if (bare) {
            git("init", "-q", "--bare", "-b", "main");
        } else {
            git("init", "-q", "-b", "main");
        }
    }

    /** A bare repository in {@code dir}, with {@code main} as its head, to push to and fetch from. */
    public static TestRepo initBare(Path dir) throws IOException {
        return new TestRepo(dir, true);
    }

    /** Writes {@code .knotless/workflows/<file>}. */
    public TestRepo workflow(String file, String yaml) throws IOException {
        return file(".knotless/workflows/" + file, yaml);
    }

    /** Writes {@code path} (UTF-8), making its directories. */
    public TestRepo file(String path, String content) throws IOException {
        return file(path, content.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes {@code path} byte for byte, making its directories. */
    public TestRepo file(String path, byte[] content) throws IOException {
        Path file = dir.resolve(path);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.write(file, content);
        return this;
    }

    /** Writes {@code path} (UTF-8) with mode {@code 0755}. */
    public TestRepo executable(String path, String content) throws IOException {
        file(path, content);
        Files.setPosixFilePermissions(dir.resolve(path), PosixFilePermissions.fromString("rwxr-xr-x"));
        return this;
    }

    /** Makes {@code path} a symbolic link to {@code target}, as written (relative stays relative). */
    public TestRepo symlink(String path, String target) throws IOException {
        Path link = dir.resolve(path);
        Files.createDirectories(link.toAbsolutePath().getParent());
        Files.createSymbolicLink(link, Path.of(target));
        return this;
    }

    /** Stages everything and commits (empty commits too) with the message {@code test}; returns the sha. */
    public String commit() throws IOException {
        return commit("test");
    }

    /** Stages everything and commits (empty commits too); returns the new sha. */
    public String commit(String message) throws IOException {
        git("add", "-A");
        git("commit", "-q", "--allow-empty", "-m", message);
        return git("rev-parse", "HEAD");
    }

    /** Runs git in this repository; returns its output (stdout and stderr) stripped. */
    public String git(String... args) throws IOException {
        return run(dir, args);
    }

    /**
     * Runs git in {@code dir} (any repository, a mirror, a checkout), as {@link #git} does;
     * returns its output (stdout and stderr) stripped. Fails with the output when git does.
     */
    public static String run(Path dir, String... args) throws IOException {
        List<String> argv = new ArrayList<>(List.of("git"));
        argv.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("GIT_CONFIG_NOSYSTEM", "1");
        env.put("GIT_CONFIG_GLOBAL", "/dev/null");
        env.put("GIT_AUTHOR_NAME", "Ada Tester");
        env.put("GIT_AUTHOR_EMAIL", "ada@example.com");
        env.put("GIT_COMMITTER_NAME", "Ada Tester");
        env.put("GIT_COMMITTER_EMAIL", "ada@example.com");
        // Nothing may wait for a person: a prompt for credentials fails instead.
        env.put("GIT_TERMINAL_PROMPT", "0");
        builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (process.waitFor() != 0) {
                throw new IOException("git " + String.join(" ", args) + " in " + dir + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return output.strip();
    }
}
