package dev.knotless.cli;

import dev.knotless.testkit.TestRepo;
import java.nio.file.Path;

/**
 * The "forge" of the daemon ITs: a bare repository on {@code main}, pushed to from a working copy
 * that holds one workflow, {@code ci.yaml}, in the test image.
 */
record PushedRepo(Path bare, TestRepo work) {

    /** Makes {@code DIR/NAME.git} and {@code DIR/NAME-work} with {@code steps} (the workflow's YAML after its image) and pushes it. */
    static PushedRepo create(Path dir, String name, String onAndSteps) throws Exception {
        Path bare = dir.resolve(name + ".git");
        new ProcessBuilder("git", "init", "-q", "--bare", "-b", "main", bare.toString()).inheritIO().start().waitFor();
        TestRepo work = new TestRepo(dir.resolve(name + "-work")).workflow("ci.yaml", "image: " + DaemonIT.IMAGE + "\n" + onAndSteps);
        work.commit();
        PushedRepo repo = new PushedRepo(bare, work);
        repo.work.git("push", "-q", bare.toString(), "HEAD:refs/heads/main");
        return repo;
    }

    /** Commits {@code content} to {@code file} and pushes it to main; the commit's sha. */
    String push(String file, String content) throws Exception {
        String sha = work.file(file, content).commit();
        work.git("push", "-q", bare.toString(), "HEAD:refs/heads/main");
        return sha;
    }
}
