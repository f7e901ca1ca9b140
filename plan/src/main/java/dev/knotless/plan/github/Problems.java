package dev.knotless.plan.github;

import dev.knotless.plan.WorkflowException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The problems of one file, gathered as its reader goes on past each one: a user moving twenty
 * files over wants every problem of a file at once, as GitHub's own parser reports them. A part
 * that fails is left out of what is built, and the file as a whole is refused at the end.
 */
final class Problems {

    /** A read that may fail at its field. */
    interface Read<T> {
        @Nullable T read() throws WorkflowException;
    }

    /** A check that may fail at its field. */
    interface Check {
        void run() throws WorkflowException;
    }

    /** A file with more is one to fix first; the rest would only repeat. */
    static final int MAX = 50;

    private final List<WorkflowException> found = new ArrayList<>();
    private final Set<String> messages = new LinkedHashSet<>();

    /** {@code read}'s value, or empty when it failed (the failure kept) or gave none. */
    <T> Optional<T> read(Read<T> read) {
        try {
            return Optional.ofNullable(read.read());
        } catch (WorkflowException e) {
            add(e);
            return Optional.empty();
        }
    }

    /** Runs {@code check}, keeping its failure. */
    void check(Check check) {
        try {
            check.run();
        } catch (WorkflowException e) {
            add(e);
        }
    }

    /** A combination of a matrix repeats its job's problems: each is kept once. */
    void add(WorkflowException e) {
        if (found.size() < MAX && messages.add(e.getMessage())) {
            found.add(e);
        }
    }

    boolean any() {
        return !found.isEmpty();
    }

    /** @throws WorkflowException holding every problem found, in the order found, when there is one */
    void throwIfAny() throws WorkflowException {
        if (!found.isEmpty()) {
            throw WorkflowException.all(found);
        }
    }
}
