package dev.knotless.runner.run.step.evaluate;

import dev.knotless.plan.expression.ExpressionException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

/**
 * The run's workspace, as {@code hashFiles} reads it: which files there are, and the SHA-256 of
 * each. The run's executor answers both ({@code run.step.HashFiles}); this package matches and
 * combines, so the rule is one for every executor.
 */
public interface WorkspaceFiles {

    /** The workspace's files, relative to it, {@code /}-separated; in any order. */
    List<String> list() throws ExpressionException;

    /** The SHA-256 of each of {@code files}, by name. */
    Map<String, byte[]> hashes(List<String> files) throws ExpressionException;

    /** The workspace directory, absolute, as the run's steps see it. */
    String directory();

    /**
     * GitHub's {@code hashFiles(patterns...)}: the SHA-256 of the SHA-256 of each matching file,
     * one after another in path order, in hex; empty when none matches. (GitHub's runner takes
     * them in the order its directory walk finds them; a sorted order is the same for one file and
     * stable for several.)
     */
    default String hashFiles(List<String> patterns) throws ExpressionException {
        FilesGlob glob = FilesGlob.of(patterns, directory());
        if (!glob.any()) {
            return "";
        }
        List<String> matched = list().stream().filter(glob::matches).sorted().toList();
        if (matched.isEmpty()) {
            return "";
        }
        Map<String, byte[]> hashes = hashes(matched);
        try {
            java.security.MessageDigest all = java.security.MessageDigest.getInstance("SHA-256");
            for (String file : matched) {
                byte[] hash = hashes.get(file);
                if (hash == null) {
                    throw new ExpressionException("hashFiles could not hash " + file, -1);
                }
                all.update(hash);
            }
            return HexFormat.of().formatHex(all.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
