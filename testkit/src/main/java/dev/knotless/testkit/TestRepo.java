package dev.knotless.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A real git repository in a temp dir, with workflow files, for end-to-end tests. */
public final class TestRepo {

    public final Path dir;

    public TestRepo(Path dir) throws IOException, InterruptedException {
        this.dir = dir;
        Files.createDirectories(dir);
        git("init", "-q", "-b", "main");
    }

    public TestRepo workflow(String file, String yaml) throws IOException {
        Path p = dir.resolve(".knotless/workflows").resolve(file);
        Files.createDirectories(p.getParent());
        Files.writeString(p, yaml);
        return this;
    }

    public TestRepo file(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.createDirectories(p.toAbsolutePath().getParent());
        Files.writeString(p, content);
        return this;
    }

    public String commit() throws IOException, InterruptedException {
        git("add", "-A");
        git("-c", "user.name=test", "-c", "user.email=test@example.invalid", "commit", "-q", "-m", "test", "--allow-empty");
        return git("rev-parse", "HEAD").strip();
    }

    public String git(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("git", "-C", dir.toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
        return out;
    }
}
