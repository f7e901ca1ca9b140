package dev.knotless.plan;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The other files of the commit a workflow is read from, for what a workflow names beside its own
 * file (a local action's {@code action.yml}). Reading them is the caller's (the runner's mirror
 * bounds each file); a front-end only asks.
 */
@FunctionalInterface
public interface CommitFiles {

    /** A commit whose other files cannot be read here (a workflow sent alone, with its event). */
    CommitFiles NONE = directory -> {
        throw new IllegalStateException("the workflow was read without its commit, so no other file of it can be read");
    };

    /**
     * The regular files directly in {@code directory} (from the repository's root, no leading
     * {@code /}), by path from the root; empty when there is no such directory.
     *
     * @throws IllegalStateException when they cannot be read, with one line that says why
     */
    Directory directory(String directory);

    /**
     * What a directory holds.
     *
     * @param texts each file read, by path from the repository's root
     * @param refused each file not read (too large, not UTF-8), with why
     */
    record Directory(Map<String, String> texts, Map<String, String> refused) {
        public Directory {
            texts = Collections.unmodifiableMap(new TreeMap<>(texts));
            refused = Collections.unmodifiableMap(new TreeMap<>(refused));
        }
    }
}
