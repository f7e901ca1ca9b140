package dev.knotless.plan;

import dev.knotless.plan.expression.Value;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A context an expression of the run reads, as a tree the front-end builds and the run fills in:
 * values the file decided, objects of named entries, and {@link RunFact}s. So the run evaluates
 * {@code github.sha} without knowing {@code github}: the front-end's tree says it is {@link
 * RunFact#COMMIT}.
 */
public sealed interface RunValue {

    /** A value decided when the file was read. */
    record Known(Value value) implements RunValue {
        public Known {
            Objects.requireNonNull(value, "value");
        }
    }

    /**
     * An object of named entries; an entry not named reads as null. The front-end refuses, when it
     * reads the file, a property that no entry names, so that null is never a feature left out.
     */
    record Entries(Map<String, RunValue> entries) implements RunValue {
        public Entries {
            entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
        }
    }

    /**
     * A fact only the run knows; {@code renames} turns the runner's text into the dialect's
     * ({@code manual} into {@code workflow_dispatch}), text not named there kept as it is.
     */
    record Fact(RunFact fact, Map<String, String> renames) implements RunValue {
        public Fact {
            Objects.requireNonNull(fact, "fact");
            renames = Map.copyOf(renames);
        }

        public Fact(RunFact fact) {
            this(fact, Map.of());
        }
    }

    /**
     * A variable of the run ({@code KNOTLESS_INPUT_LEVEL}, which a manual run's input sets), read as
     * {@code kind}: null when the run has none.
     */
    record Variable(String name, Input.Kind kind) implements RunValue {
        public Variable {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(kind, "kind");
        }
    }

    /**
     * How the runs of {@code group} (a needed workflow, all combinations of its matrix) ended, as an
     * object of {@code result} ({@code success}, {@code failure}, {@code cancelled}, {@code
     * skipped}) and {@code outputs}, what they handed on (the last combination's, where several
     * set one); null when the run does not need them.
     */
    record Needed(String group) implements RunValue {
        public Needed {
            Objects.requireNonNull(group, "group");
        }
    }

    /**
     * The steps of {@code scope} that ended before the one evaluating, by their ids, each an
     * object of {@code outputs}, {@code outcome} and {@code conclusion} ({@code success}, {@code
     * failure}, {@code cancelled}, {@code skipped}; the conclusion of a step that may fail is {@code
     * success}). The job's own steps are scope {@link Step#JOB}; a local action's are its own.
     */
    record Steps(String scope) implements RunValue {
        public Steps {
            Objects.requireNonNull(scope, "scope");
        }
    }

    /**
     * A value the run works out where it is read, over its own contexts: what a local action's
     * caller gave it as an input ({@code with: {version: ${{ steps.v.outputs.version }}}}),
     * evaluated in the caller's scope.
     */
    record Later(Computed value) implements RunValue {
        public Later {
            Objects.requireNonNull(value, "value");
        }
    }
}
