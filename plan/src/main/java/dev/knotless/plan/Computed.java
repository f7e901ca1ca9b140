package dev.knotless.plan;

import java.util.List;
import java.util.Objects;

/**
 * A value the run computes as a step is about to start, rather than one written in the file.
 * The plan holds what to compute, typed and with no expression language left in it, so that the
 * run computes it one way whatever the dialect, and a front-end that cannot turn an expression
 * into one of these refuses the file at its line instead of passing text on.
 *
 * <p>No dialect produces one yet: ours has no expressions beyond {@code ${matrix.KEY}}, which the
 * parser fills in. GitHub Actions' {@code ${{ hashFiles('package-lock.json') }}} and
 * {@code ${{ steps.build.outputs.version }}} will be {@link FilesHash} and {@link StepOutput}.
 */
public sealed interface Computed {

    /** Text as written. */
    record Text(String value) implements Computed {
        public Text {
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * A hash of the files matching {@code patterns} (relative to the workspace, globs as for
     * reports), in path order; empty when none matches, as GitHub's {@code hashFiles} is.
     */
    record FilesHash(List<String> patterns) implements Computed {
        public FilesHash {
            patterns = List.copyOf(patterns);
        }
    }

    /**
     * What an earlier step handed back under {@code name} through its outputs file ({@link
     * StepFiles.Purpose#OUTPUTS}); empty when it gave none.
     *
     * @param step that step's number, from 1
     */
    record StepOutput(int step, String name) implements Computed {
        public StepOutput {
            if (step < 1) {
                throw new IllegalArgumentException("steps count from 1, was " + step);
            }
            Objects.requireNonNull(name, "name");
        }
    }

    /** The parts one after another, such as {@code npm-} and a hash. */
    record Joined(List<Computed> parts) implements Computed {
        public Joined {
            parts = List.copyOf(parts);
        }
    }
}
