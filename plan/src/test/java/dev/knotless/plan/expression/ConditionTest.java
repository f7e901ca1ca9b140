package dev.knotless.plan.expression;

import static dev.knotless.plan.expression.Fixtures.CONTEXTS;
import static dev.knotless.plan.expression.Fixtures.STEP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.knotless.plan.expression.Fixtures.Recorder;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** An {@code if:} as the runner's workflow converter reads it ({@code ConvertToIfCondition}). */
class ConditionTest {

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            `` -> success()
            `  ` -> success()
            github.ref == 'refs/heads/main' -> (success() && (github.ref == 'refs/heads/main'))
            ${{ github.ref == 'refs/heads/main' }} -> (success() && (github.ref == 'refs/heads/main'))
            `  ${{ github.ref == 'refs/heads/main' }}` -> (success() && format('  {0}', (github.ref == 'refs/heads/main')))
            a && b -> ERROR
            github.ref && env.TEST -> (success() && github.ref && env.TEST)
            github.ref || env.TEST -> (success() && (github.ref || env.TEST))
            always() -> always()
            ${{ always() }} -> always()
            failure() && steps.step-id.outcome == 'failure' -> (failure() && (steps.step-id.outcome == 'failure'))
            !cancelled() -> !cancelled()
            SUCCESS() || FAILURE() -> (success() || failure())
            contains(format('{0}', Always()), 'x') -> contains(format('{0}', always()), 'x')
            hashFiles('a') != '' -> (success() && (hashFiles('a') != ''))
            ${{ github.ref }} == 'refs/heads/main' -> (success() && format('{0} == ''refs/heads/main''', github.ref))
            ${{ always() }} && false -> format('{0} && false', always())
            ${{ 'github.ref == ''x''' }} -> (success() && (github.ref == 'x'))
            ${{ '  ' }} -> success()
            ${{ 'always()' }} -> always()
            """)
    void addsSuccessUnlessTheConditionAsksAboutStatus(String text, String condition) throws ExpressionException {
        if (condition.equals("ERROR")) {
            assertThat(catchThrowableOfType(ExpressionException.class, () -> Condition.parse(text, STEP))).isNotNull();
            return;
        }
        assertThat(Condition.parse(text, STEP)).hasToString(condition);
    }

    @Test
    void aConditionIsTrueOnlyWhenSuccessIsUnlessItAsksAboutStatus() throws ExpressionException {
        Contexts contexts = Contexts.of(CONTEXTS);
        Recorder failed = new Recorder(Value.FALSE);
        Condition onMain = Condition.parse("github.ref == 'refs/heads/main' && hashFiles('x')", STEP);
        assertThat(onMain.evaluate(contexts, failed)).isFalse();
        assertThat(failed.calls).as("success() is false: the rest is never evaluated").containsExactly("success()");

        Recorder passed = new Recorder(Value.TRUE);
        assertThat(onMain.evaluate(contexts, passed)).isTrue();
        assertThat(passed.calls).containsExactly("success()", "hashFiles('x')");

        Recorder host = new Recorder(Value.TRUE);
        assertThat(Condition.parse("${{ always() && github.ref == 'refs/heads/dev' }}", STEP).evaluate(contexts, host)).isFalse();
        assertThat(host.calls).containsExactly("always()");
    }

    @Test
    void textAroundTheExpressionMakesAStringThatIsAlwaysTrue() throws ExpressionException {
        Condition quirk = Condition.parse("${{ github.ref }} == 'refs/heads/other'", STEP);
        assertThat(quirk.evaluate(Contexts.of(CONTEXTS), (name, args) -> Value.TRUE))
                .as("as on GitHub: 'refs/heads/main == ...' is a non-empty string")
                .isTrue();
        assertThat(Condition.parse("${{ github.ref == 'refs/heads/other' }}", STEP)
                .evaluate(Contexts.of(CONTEXTS), (name, args) -> Value.TRUE)).isFalse();
    }

    @Test
    void failsAtItsPlace() {
        ExpressionException e = catchThrowableOfType(ExpressionException.class,
                () -> Condition.parse("github.ref == ", STEP));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo("column 15: expected a value after '==', found the end of the expression");
        ExpressionException inTemplate = catchThrowableOfType(ExpressionException.class,
                () -> Condition.parse("x ${{ nope }}", STEP));
        assertThat(inTemplate).isNotNull();
        assertThat(inTemplate.column()).isEqualTo(7);
        ExpressionException inLiteral = catchThrowableOfType(ExpressionException.class,
                () -> Condition.parse("${{ 'github.ref ==' }}", STEP));
        assertThat(inLiteral).isNotNull();
        assertThat(inLiteral.getMessage()).isEqualTo("column 1: expected a value after '==', found the end of the expression"
                + " (in the condition the string literal holds)");
        ExpressionException empty = catchThrowableOfType(ExpressionException.class, () -> Condition.parse("${{ }}", STEP));
        assertThat(empty).isNotNull();
        assertThat(empty.problem()).isEqualTo("expected an expression between '${{' and '}}'");
    }

    @Test
    void theAddedSuccessCountsTowardsTheLimits() throws ExpressionException {
        String fifty = "!".repeat(49) + "true";
        String fortyNine = "!".repeat(48) + "true";
        assertThat(Expression.parse(fifty, STEP)).isInstanceOf(Expression.Not.class);
        ExpressionException tooDeep = catchThrowableOfType(ExpressionException.class, () -> Condition.parse(fifty, STEP));
        assertThat(tooDeep).isNotNull();
        assertThat(tooDeep.problem()).isEqualTo("the expression nests deeper than 50 levels, GitHub's limit");
        assertThat(Condition.parse(fortyNine, STEP)).hasToString("(success() && " + fortyNine + ")");
        assertThat(Condition.parse("always() && " + fortyNine, STEP).expression()).isInstanceOf(Expression.And.class);
        assertThat(Condition.parse("true && " + fortyNine, STEP)).as("an && is flattened into the added one")
                .hasToString("(success() && true && " + fortyNine + ")");

        String longest = "'" + "x".repeat(21_000 - 15 - 2) + "'";
        assertThat(Condition.parse(longest, STEP).expression()).isInstanceOf(Expression.And.class);
        ExpressionException tooLong = catchThrowableOfType(ExpressionException.class,
                () -> Condition.parse("'" + "x".repeat(21_000 - 15 - 1) + "'", STEP));
        assertThat(tooLong).isNotNull();
        assertThat(tooLong.problem()).isEqualTo("the condition is 21001 characters long as success() && (...); GitHub allows 21000");
    }

    @Test
    void theScopeMustOfferSuccess() {
        assertThatThrownBy(() -> Condition.parse("true", Scope.of(List.of("github"))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
