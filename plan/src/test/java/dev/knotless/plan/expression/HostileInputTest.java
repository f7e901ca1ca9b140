package dev.knotless.plan.expression;

import static dev.knotless.plan.expression.Fixtures.CONTEXTS;
import static dev.knotless.plan.expression.Fixtures.STEP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Expressions come from pull requests: whatever the text, parsing and evaluation end quickly, in
 * bounded memory and stack, with an {@link ExpressionException}. The depth cases are GitHub's
 * (syntax-errors test data): 50 levels pass and 51 fail, counted on the tree.
 */
class HostileInputTest {

    /**
     * A hang-catcher, not a measure: what each test proves is its answer, and that it comes at all
     * (an exponential or endless evaluation would not). Far above any load's slowdown.
     */
    private static final Duration QUICKLY = Duration.ofSeconds(60);

    @Test
    void fiftyLevelsPassAndFiftyOneFail() throws ExpressionException {
        assertThat(eval("!".repeat(49) + "false")).isEqualTo(Value.TRUE);
        assertTooDeep("!".repeat(50) + "false");

        StringBuilder properties = new StringBuilder("github");
        for (int i = 1; i < 50; i++) {
            properties.append("._").append(i);
        }
        assertThat(eval(properties.toString())).isEqualTo(Value.NULL);
        assertTooDeep(properties + "._50");

        assertThat(eval("github" + ".*".repeat(49))).isEqualTo(Value.array());
        assertTooDeep("github" + ".*".repeat(50));
        assertThat(eval("github" + "[*]".repeat(49))).isEqualTo(Value.array());
        assertTooDeep("github" + "[*]".repeat(50));
        assertThat(eval("github" + "[1]".repeat(49))).isEqualTo(Value.NULL);
        assertTooDeep("github" + "[1]".repeat(50));

        String calls = "fromjson(tojson(".repeat(24) + "fromjson('1'" + "))".repeat(24) + ")";
        assertThat(eval(calls)).isEqualTo(Value.of(1));
        assertTooDeep("fromjson(tojson(".repeat(24) + "fromjson(tojson(1)" + "))".repeat(24) + ")");
    }

    @Test
    void flatAndsAndOrsAreOneLevelHoweverLong() throws ExpressionException {
        List<String> numbers = new ArrayList<>();
        for (int i = 1; i <= 60; i++) {
            numbers.add(String.valueOf(i));
        }
        assertThat(eval(String.join(" && ", numbers))).isEqualTo(Value.of(60));
        assertThat(eval(String.join(" || ", numbers))).isEqualTo(Value.of(1));
        StringBuilder mixed = new StringBuilder("1 && 2");
        for (int i = 3; i < 60; i += 2) {
            mixed.append(" || ").append(i).append(" && ").append(i + 1);
        }
        assertThat(eval(mixed.toString())).isEqualTo(Value.of(2));
        String longest = "true" + " || true".repeat((21_000 - 4) / 8);
        assertThat(longest.length()).isLessThanOrEqualTo(21_000);
        assertThat(assertTimeoutPreemptively(QUICKLY, () -> eval(longest))).isEqualTo(Value.TRUE);
    }

    /** The one place this parser is stricter than the runner: a group adds no level to the tree, but nests the parser. */
    @Test
    void groupsNestFiftyDeep() throws ExpressionException {
        assertThat(eval("(".repeat(50) + "1" + ")".repeat(50))).isEqualTo(Value.of(1));
        ExpressionException e = catchThrowableOfType(ExpressionException.class,
                () -> eval("(".repeat(51) + "1" + ")".repeat(51)));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo("column 51: the expression nests deeper than 50 levels, GitHub's limit");
    }

    @Test
    void twentyOneThousandCharactersPassAndOneMoreFails() throws ExpressionException {
        String longest = "'" + "x".repeat(20_998) + "'";
        assertThat(eval(longest)).isEqualTo(Value.of("x".repeat(20_998)));
        ExpressionException e = catchThrowableOfType(ExpressionException.class, () -> eval(longest + " "));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo("column 1: the expression is 21001 characters long; GitHub allows 21000");
        ExpressionException huge = assertTimeoutPreemptively(QUICKLY,
                () -> catchThrowableOfType(ExpressionException.class, () -> eval("(".repeat(50_000_000))));
        assertThat(huge).isNotNull();
        assertThat(huge.problem()).isEqualTo("the expression is 50000000 characters long; GitHub allows 21000");
    }

    /** Each runs on a thread with a 256 KiB stack: a parser that recursed per level would overflow it. */
    @ParameterizedTest
    @ValueSource(strings = {"(", "!", "[", "format(", "a.", "a[", "'x", "-", "a==", "a&&", "contains(a,"})
    void aLongRunOfOneTokenFailsQuicklyOnASmallStack(String token) {
        String text = token.repeat(21_000 / token.length());
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread parser = new Thread(null, () -> {
            try {
                Expression.parse(text, Fixtures.ABCD);
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, "small stack", 256 * 1024);
        assertTimeoutPreemptively(QUICKLY, () -> {
            parser.start();
            parser.join();
        });
        assertThat(thrown.get()).isInstanceOf(ExpressionException.class);
    }

    @Test
    void formatCannotGrowAShortExpressionExponentially() {
        String expression = "'x'";
        for (int i = 0; i < 12; i++) {
            expression = "format('" + "{0}".repeat(10) + "', " + expression + ")";
        }
        String bomb = expression;
        ExpressionException e = assertTimeoutPreemptively(QUICKLY,
                () -> catchThrowableOfType(ExpressionException.class, () -> eval(bomb)));
        assertThat(e).isNotNull();
        assertThat(e.problem()).isEqualTo("the evaluation needs more than the 10485760 bytes of memory it may use");
        assertThat(e.column()).as("the call that passed the limit").isEqualTo(1 + "format('{0}{0}{0}{0}{0}{0}{0}{0}{0}{0}', ".length() * 5);
    }

    /** GitHub's memory-errors case: 40 copies of a big toJSON(github) pass the runner's 1 MiB default for one evaluation. */
    @Test
    void resultsAreCountedAsTheRunnerCountsThem() throws ExpressionException {
        Value github = Value.object(Map.of("body", Value.of("b".repeat(14_000))));
        Contexts contexts = Contexts.of(Map.of("github", github));
        String forty = "format('" + "{0}".repeat(40) + "', tojson(github))";
        Expression e = Expression.parse("startswith(" + forty + ", " + forty + ")", STEP);
        Evaluator small = new Evaluator(contexts, Functions.none(), 1024 * 1024);
        ExpressionException error = catchThrowableOfType(ExpressionException.class, () -> small.evaluate(e));
        assertThat(error).isNotNull();
        assertThat(error.problem()).isEqualTo("the evaluation needs more than the 1048576 bytes of memory it may use");
        assertThat(new Evaluator(contexts, Functions.none()).evaluate(e)).as("within the runner's 10 MiB for workflows")
                .isEqualTo(Value.TRUE);
    }

    @Test
    void operandsAreLetGoOnceTheirResultIsMade() throws ExpressionException {
        Contexts contexts = Contexts.of(Map.of("env", Value.object(Map.of("BIG", Value.of("x".repeat(200_000))))));
        Evaluator small = new Evaluator(contexts, Functions.none(), 1024 * 1024);
        String once = "format('{0}', env.BIG) == ''";
        assertThat(small.evaluate(Expression.parse(String.join(" || ", List.of(once, once, once, once, once)), STEP)))
                .as("five 400 KB strings in turn, never two at once").isEqualTo(Value.FALSE);
        ExpressionException e = catchThrowableOfType(ExpressionException.class,
                () -> small.evaluate(Expression.parse("format('{0}{0}{0}', env.BIG)", STEP)));
        assertThat(e).isNotNull();
        assertThat(small.memoryLimit()).isEqualTo(1024 * 1024);
    }

    @Test
    void joinToJsonAndFiltersAreHeldToTheLimit() throws ExpressionException {
        List<Value> items = new ArrayList<>();
        for (int i = 0; i < 50_000; i++) {
            items.add(Value.object(Map.of("name", Value.of("item-" + i))));
        }
        Contexts contexts = Contexts.of(Map.of("github", Value.object(Map.of("items", Value.array(items)))));
        Evaluator small = new Evaluator(contexts, Functions.none(), 256 * 1024);
        for (String expression : List.of("join(github.items.*.name, '--------')", "toJSON(github.items)",
                "github.items.*.*")) {
            ExpressionException e = assertTimeoutPreemptively(QUICKLY,
                    () -> catchThrowableOfType(ExpressionException.class, () -> small.evaluate(Expression.parse(expression, STEP))));
            assertThat(e).as(expression).isNotNull();
            assertThat(e.problem()).isEqualTo("the evaluation needs more than the 262144 bytes of memory it may use");
        }
        Evaluator roomy = new Evaluator(contexts, Functions.none());
        assertThat(((Value.StringValue) roomy.evaluate(Expression.parse("join(github.items.*.name)", STEP))).value())
                .startsWith("item-0,item-1,").endsWith(",item-49999");
    }

    private static Value eval(String expression) throws ExpressionException {
        return Expression.parse(expression, STEP).evaluate(Contexts.of(CONTEXTS), Functions.none());
    }

    private static void assertTooDeep(String expression) {
        ExpressionException e = catchThrowableOfType(ExpressionException.class, () -> Expression.parse(expression, STEP));
        assertThat(e).as(expression).isNotNull();
        assertThat(e.problem()).isEqualTo("the expression nests deeper than 50 levels, GitHub's limit");
    }
}
