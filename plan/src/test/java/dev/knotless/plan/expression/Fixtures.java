package dev.knotless.plan.expression;

import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.knotless.plan.expression.Value.ArrayValue;
import dev.knotless.plan.expression.Value.ObjectValue;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/** What the expression tests share: a step's scope, contexts like a run's, and a short form of values. */
final class Fixtures {

    /** A step's contexts and functions, as GitHub's schema allows them in a step's {@code if:}. */
    static final Scope STEP = new Scope(
            List.of("github", "env", "steps", "secrets", "matrix", "needs", "inputs", "vars", "job", "runner", "strategy"),
            List.of(HostFunction.HASH_FILES, HostFunction.SUCCESS, HostFunction.FAILURE, HostFunction.ALWAYS,
                    HostFunction.CANCELLED));

    /** Four bare names, for tests about syntax rather than values. */
    static final Scope ABCD = new Scope(List.of("a", "b", "c", "d"), HostFunction.STATUS);

    /** Like act's interpreter tests' environment, as JSON. */
    static final ObjectValue CONTEXTS = (ObjectValue) json("""
            {
              "github": {
                "action": "push", "event_name": "push", "ref": "refs/heads/main",
                "event": {
                  "commits": [
                    {"author": {"username": "someone"}, "message": "first"},
                    {"author": {"username": "someone-else"}}
                  ],
                  "pull_request": null
                }
              },
              "env": {"TEST": "value", "Empty": "", "Number": "42"},
              "steps": {
                "step-id": {"outputs": {"name": "value"}, "outcome": "success", "conclusion": "success"},
                "step-id2": {"outputs": {}, "outcome": "failure", "conclusion": "skipped"}
              },
              "needs": {
                "job-id": {"outputs": {"output-name": "value"}, "result": "success"},
                "another-job-id": {"outputs": {"output-name": "value"}, "result": "failure"}
              },
              "secrets": {"name": "value"},
              "vars": {"name": "value"},
              "matrix": {"os": "Linux", "node": 20, "include": [1, 2, 3]},
              "strategy": {"fail-fast": true},
              "inputs": {"name": "value"},
              "runner": {"os": "Linux", "temp": "/tmp"},
              "job": {"status": "success"}
            }
            """);

    private Fixtures() {
    }

    static Value eval(String expression) throws ExpressionException {
        return Expression.parse(expression, STEP).evaluate(Contexts.of(CONTEXTS), Functions.none());
    }

    /** The value in the short form the tables use: see {@link #show(Value)}. */
    static String evalShow(String expression) throws ExpressionException {
        return show(eval(expression));
    }

    static Value json(String text) {
        try {
            return Json.parse(text);
        } catch (ExpressionException e) {
            throw new AssertionError(e);
        }
    }

    static ExpressionException parseError(String expression, Scope scope) {
        ExpressionException e = catchThrowableOfType(ExpressionException.class, () -> Expression.parse(expression, scope));
        if (e == null) {
            throw new AssertionError("expected " + expression + " not to parse");
        }
        return e;
    }

    static ExpressionException evalError(String expression) {
        ExpressionException e = catchThrowableOfType(ExpressionException.class, () -> eval(expression));
        if (e == null) {
            throw new AssertionError("expected " + expression + " to fail");
        }
        return e;
    }

    /**
     * null, true, 3.14 (as the runner prints numbers), 'text' (quotes not escaped), [a, b],
     * {key: value}: enough to tell every kind and value apart in a table.
     */
    static String show(Value v) {
        return switch (v) {
            case Value.NullValue n -> "null";
            case Value.BooleanValue b -> String.valueOf(b.value());
            case Value.NumberValue n -> n.asString();
            case Value.StringValue s -> "'" + s.value() + "'";
            case ArrayValue a -> {
                List<String> items = new ArrayList<>();
                a.items().forEach(item -> items.add(show(item)));
                yield "[" + String.join(", ", items) + "]";
            }
            case ObjectValue o -> {
                StringJoiner j = new StringJoiner(", ", "{", "}");
                for (int i = 0; i < o.size(); i++) {
                    j.add(o.keys().get(i) + ": " + show(o.values().get(i)));
                }
                yield j.toString();
            }
        };
    }

    /** A host that answers every function with its name and arguments, and remembers each call. */
    static final class Recorder implements Functions {
        final List<String> calls = new ArrayList<>();
        private final Value answer;

        Recorder(Value answer) {
            this.answer = answer;
        }

        @Override
        public Value call(String name, List<Value> arguments) {
            List<String> shown = new ArrayList<>();
            arguments.forEach(a -> shown.add(show(a)));
            calls.add(name + "(" + String.join(", ", shown) + ")");
            return answer;
        }
    }
}
