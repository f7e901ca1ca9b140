package dev.knotless.plan;

import java.util.List;
import java.util.Objects;

/**
 * The files a push or a pull request changed, which a workflow's path filters are matched
 * against ({@link Triggers#matchesPaths}).
 */
public sealed interface ChangedFiles {

    /** The changed paths, from the repository's root, such as {@code docs/index.md}. */
    record Known(List<String> paths) implements ChangedFiles {
        public Known {
            paths = List.copyOf(paths);
        }
    }

    /**
     * What changed is not known (a first push with nothing to compare with, more files than are
     * read, a commit compared with that the mirror lacks): every path filter lets the workflow run,
     * since a run too many costs minutes and a run missed lets a change in unchecked.
     *
     * @param why said in the runner's log, such as "more than 3000 files changed"
     */
    record Unknown(String why) implements ChangedFiles {
        public Unknown {
            Objects.requireNonNull(why, "why");
        }
    }
}
