package dev.knotless.plan;

import dev.knotless.plan.expression.Expression;
import dev.knotless.plan.expression.HostFunction;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A value the run computes as a step is about to start, rather than one written in the file.
 * The plan holds what to compute, typed, so that the run computes it one way whatever the
 * dialect, and a front-end that cannot turn an expression into one of these refuses the file at
 * its line instead of passing text on.
 *
 * <p>Ours has no expressions beyond {@code ${matrix.KEY}}, which the parser fills in. GitHub
 * Actions' expressions that read what only the run knows are {@link Evaluated}: the expression,
 * parsed, and the tree of the contexts it reads ({@link RunValue}).
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

    /**
     * A condition that holds when each of {@code conditions} does (each truthy, read one after
     * another); as text, {@code true} or {@code false}. What a step of a local composite action gets
     * when the step that uses the action has a condition of its own, each part over its own
     * contexts.
     */
    record All(List<Computed> conditions) implements Computed {
        public All {
            conditions = List.copyOf(conditions);
            if (conditions.isEmpty()) {
                throw new IllegalArgumentException("a condition of no parts");
            }
        }
    }

    /** The parts one after another, such as {@code npm-} and a hash. */
    record Joined(List<Computed> parts) implements Computed {
        public Joined {
            parts = List.copyOf(parts);
        }
    }

    /**
     * An expression's value as text ({@code true}, a number as GitHub writes it, an object as
     * JSON), evaluated over {@code contexts}, whose leaves the run fills in, and the status
     * functions ({@link HostFunction#STATUS}) answered from how the run has gone so far. The
     * expression language is the plan's own ({@code dev.knotless.plan.expression}); nothing in it
     * names a dialect's contexts.
     *
     * @param text the expression as written, for messages
     * @param contexts each context it may read, by name; the run evaluates nothing else
     */
    record Evaluated(Expression expression, String text, Map<String, RunValue> contexts) implements Computed {
        public Evaluated {
            Objects.requireNonNull(expression, "expression");
            Objects.requireNonNull(text, "text");
            contexts = Collections.unmodifiableMap(new LinkedHashMap<>(contexts));
        }
    }
}
