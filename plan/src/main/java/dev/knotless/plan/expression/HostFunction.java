package dev.knotless.plan.expression;

import java.util.List;
import java.util.Objects;

/**
 * A function the host answers through {@link Functions}, with the number of arguments it takes:
 * a call with more or fewer fails the parse, as GitHub's schema declares them ({@code
 * hashFiles(1,255)}, {@code success(0,0)}).
 */
public record HostFunction(String name, int minArguments, int maxArguments) {

    /** {@code hashFiles(pattern, ...)}: a hash of the files matching the patterns. */
    public static final HostFunction HASH_FILES = new HostFunction("hashFiles", 1, 255);
    /** {@code success()}: no step before has failed and the run was not cancelled. */
    public static final HostFunction SUCCESS = new HostFunction("success", 0, 0);
    /** {@code failure()}: a step before has failed. */
    public static final HostFunction FAILURE = new HostFunction("failure", 0, 0);
    /** {@code always()}: whatever happened before, even a cancel. */
    public static final HostFunction ALWAYS = new HostFunction("always", 0, 0);
    /** {@code cancelled()}: the run was cancelled. */
    public static final HostFunction CANCELLED = new HostFunction("cancelled", 0, 0);

    /** The status functions: an {@code if:} that calls none of them is run as {@code success() && (...)}. */
    public static final List<HostFunction> STATUS = List.of(SUCCESS, FAILURE, ALWAYS, CANCELLED);

    public HostFunction {
        Objects.requireNonNull(name, "name");
        if (!Chars.isKeyword(name)) {
            throw new IllegalArgumentException("a function is named like a property, not " + Chars.quote(name));
        }
        if (Builtin.named(name) != null) {
            throw new IllegalArgumentException(name + " is built in; a host cannot answer it");
        }
        if (minArguments < 0 || maxArguments < minArguments) {
            throw new IllegalArgumentException(name + " takes " + minArguments + " to " + maxArguments + " arguments");
        }
    }

    /** Whether this is one of the {@link #STATUS} functions. */
    public boolean isStatus() {
        return isStatus(name);
    }

    static boolean isStatus(String name) {
        for (HostFunction f : STATUS) {
            if (f.name.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }
}
