package dev.knotless.checkout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A real git repository made for a test, driven through the git command line. */
final class TestRepo {

    final Path dir;

    private TestRepo(Path dir) {
        this.dir = dir;
    }

    static TestRepo init(Path dir) throws IOException {
        Files.createDirectories(dir);
        TestRepo repo = new TestRepo(dir);
        repo.git("init", "-q", "-b", "main");
        return repo;
    }

    static TestRepo initBare(Path dir) throws IOException {
        Files.createDirectories(dir);
        TestRepo repo = new TestRepo(dir);
        repo.git("init", "-q", "--bare", "-b", "main");
        return repo;
    }

    TestRepo write(String path, String content) throws IOException {
        Path file = dir.resolve(path);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content, StandardCharsets.UTF_8);
        return this;
    }

    TestRepo writeBytes(String path, byte[] content) throws IOException {
        Path file = dir.resolve(path);
        Files.createDirectories(file.getParent());
        Files.write(file, content);
        return this;
    }

    TestRepo executable(String path, String content) throws IOException {
        write(path, content);
        Files.setPosixFilePermissions(dir.resolve(path), PosixFilePermissions.fromString("rwxr-xr-x"));
        return this;
    }

    TestRepo symlink(String path, String target) throws IOException {
        Path link = dir.resolve(path);
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, Path.of(target));
        return this;
    }

    /** Stages everything and commits; returns the new sha. */
    String commit(String message) throws IOException {
        git("add", "-A");
        git("commit", "-q", "--allow-empty", "-m", message);
        return git("rev-parse", "HEAD");
    }

    /** Runs git in this repository, isolated from the host's configuration; returns stdout trimmed. */
    String git(String... args) throws IOException {
        return run(dir, args);
    }

    static String run(Path dir, String... args) throws IOException {
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
        env.put("GIT_TERMINAL_PROMPT", "0");
        builder.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (process.waitFor() != 0) {
                throw new IOException("git " + String.join(" ", args) + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        return output.strip();
    }
}
