package dev.knotless.plan.expression;

import java.util.List;

/**
 * What the host answers: {@code hashFiles} and the status functions {@code success()}, {@code
 * failure()}, {@code always()}, {@code cancelled()}, or whatever else its {@link Scope} declares.
 * Built-in functions never reach it. The arguments are evaluated, in order, and their number was
 * checked when the expression was parsed.
 */
@FunctionalInterface
public interface Functions {

    /**
     * @param name as the scope declares it, whatever case the expression wrote
     * @throws ExpressionException to fail the evaluation; without an offset it gets the call's
     */
    Value call(String name, List<Value> arguments) throws ExpressionException;

    /** For places that allow no host function: every call fails. */
    static Functions none() {
        return (name, arguments) -> {
            throw new ExpressionException(name + "() cannot be evaluated here", -1);
        };
    }
}
