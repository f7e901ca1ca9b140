package dev.knotless.checks;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a run's JUnit XML reports say, summed over its report files.
 *
 * @param files the report files read
 * @param tests test cases, each counted once
 * @param failures test cases with a {@code failure}
 * @param errors test cases with an {@code error}
 * @param skipped test cases {@code skipped}
 * @param timeMs the test cases' time, summed
 * @param failed the first {@value #LISTED} failed test cases (failures and errors), in file order
 * @param notes one line each about files not read (too large, not JUnit XML, a DTD), at most a few
 */
public record TestSummary(int files, int tests, int failures, int errors, int skipped, long timeMs,
        List<FailedTest> failed, @JsonInclude(JsonInclude.Include.NON_EMPTY) @Nullable List<String> notes) {

    /** How many failed test cases a check lists; the counts cover them all. */
    public static final int LISTED = 50;

    public TestSummary {
        failed = List.copyOf(failed);
        notes = notes == null ? List.of() : List.copyOf(notes);
    }

    /** Tests that ran and passed. */
    public int passed() {
        return tests - failures - errors - skipped;
    }

    /** "12 tests: 10 passed, 1 failed, 1 skipped" (errors are said only when there are some). */
    public String line() {
        return tests + " test" + (tests == 1 ? "" : "s") + ": " + passed() + " passed, " + failures + " failed"
                + (errors > 0 ? ", " + errors + " errors" : "") + ", " + skipped + " skipped";
    }

    /**
     * One failed test case.
     *
     * @param className its {@code classname}; empty when the report gives none
     * @param name its {@code name}
     * @param message the first lines of its failure's message (or text), capped
     * @param error whether it was an {@code error} rather than a {@code failure}
     */
    public record FailedTest(String className, String name, String message, boolean error) {

        public FailedTest {
            Objects.requireNonNull(className, "className");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(message, "message");
        }

        /** {@code Class.name}, or the name alone. */
        public String qualifiedName() {
            return className.isEmpty() ? name : className + "." + name;
        }
    }
}
