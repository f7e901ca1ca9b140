package dev.knotless.plan.expression;

import static dev.knotless.plan.expression.Fixtures.CONTEXTS;
import static dev.knotless.plan.expression.Fixtures.STEP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.knotless.plan.expression.Fixtures.Recorder;
import dev.knotless.plan.expression.Template.Embedded;
import dev.knotless.plan.expression.Template.Text;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Text with expressions in it, split and evaluated as the runner's template reader does. */
class TemplateTest {

    @Test
    void splitsTextAndExpressionsWithTheirOffsets() throws ExpressionException {
        Template t = Template.parse("echo ${{ github.sha }} and ${{env.X}}!", STEP);
        assertThat(t.parts()).hasSize(5);
        assertThat(t.parts().get(0)).isEqualTo(new Text("echo ", 0));
        Embedded sha = (Embedded) t.parts().get(1);
        assertThat(sha.offset()).isEqualTo(5);
        assertThat(sha.end()).isEqualTo(22);
        assertThat(sha.expression()).hasToString("github.sha");
        assertThat(sha.expression().children().get(0).offset()).as("offsets are the whole text's").isEqualTo(9);
        assertThat(t.parts().get(2)).isEqualTo(new Text(" and ", 22));
        assertThat(((Embedded) t.parts().get(3)).expression()).hasToString("env.X");
        assertThat(t.parts().get(4)).isEqualTo(new Text("!", 37));
        assertThat(t.isLiteral()).isFalse();
        assertThat(t.contexts()).containsExactly("github", "env");
        assertThat(t.functions()).containsExactly("format");
        assertThat(t.expression()).as("what the runner evaluates").hasToString("format('echo {0} and {1}!', github.sha, env.X)");
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            plain text -> plain text
            `` -> ``
            braces {0} and }} stay -> braces {0} and }} stay
            ${{ github.action }} -> push
            `  ${{ github.action }}  ` -> `  push  `
            ${{ github.action }}${{ github.action }} -> pushpush
            ref=${{ github.ref }}; os=${{ runner.os }} -> ref=refs/heads/main; os=Linux
            ${{ '}}' }} -> }}
            ${{ 'a}}b' }}c -> a}}bc
            ${{ 'it''s' }} -> it's
            x${{ '{0}' }}y -> x{0}y
            ${{ '${{ not an expression }}' }} -> ${{ not an expression }}
            $${{ 1 }} -> $1
            ${{ 1 }}}} -> 1}}
            ${{ null }}|${{ true }}|${{ 3.0 }}|${{ fromJSON('[]') }}|${{ github }} -> |true|3|Array|Object
            ${{ toJSON(matrix.include) }} -> [\\n  1,\\n  2,\\n  3\\n]
            ${{ env.MISSING }}end -> end
            ${{ github.action == 'push' && 'yes' || 'no' }} -> yes
            """)
    void evaluatesToText(String text, String result) throws ExpressionException {
        assertThat(Template.parse(text, STEP).evaluate(Contexts.of(CONTEXTS), Functions.none()))
                .isEqualTo(result.replace("\\n", "\n"));
    }

    @Test
    void aTextThatIsOneExpressionKeepsItsValue() throws ExpressionException {
        Evaluator evaluator = new Evaluator(Contexts.of(CONTEXTS), Functions.none());
        assertThat(Template.parse("${{ matrix.include }}", STEP).evaluateValue(evaluator)).isEqualTo(Fixtures.json("[1, 2, 3]"));
        assertThat(Template.parse("${{ matrix.node }}", STEP).evaluateValue(evaluator)).isEqualTo(Value.of(20));
        assertThat(Template.parse(" ${{ matrix.node }}", STEP).evaluateValue(evaluator)).isEqualTo(Value.of(" 20"));
        assertThat(Template.parse("no expression", STEP).evaluateValue(evaluator)).isEqualTo(Value.of("no expression"));
        assertThat(Template.parse("${{ matrix.node }}", STEP).expression()).hasToString("matrix.node");
        Template literal = Template.parse("{plain}", STEP);
        assertThat(literal.isLiteral()).isTrue();
        assertThat(literal.parts()).containsExactly(new Text("{plain}", 0));
        assertThat(literal.expression()).hasToString("'{plain}'");
        assertThat(literal.text()).isEqualTo("{plain}");
    }

    @Test
    void anExpressionEndsAtTheFirstClosingBracesOutsideAString() throws ExpressionException {
        Template t = Template.parse("${{ format('{{0}}}', 'x') }} tail", STEP);
        assertThat(((Embedded) t.parts().get(0)).expression()).hasToString("format('{{0}}}', 'x')");
        assertThat(t.parts().get(1)).isEqualTo(new Text(" tail", 28));
        // A '}}' that ends the string's last brace ends the expression too, whatever follows.
        Template early = Template.parse("${{ 'a' }}}} ${{ 'b' }}", STEP);
        assertThat(early.evaluate(Contexts.none(), Functions.none())).isEqualTo("a}} b");
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            echo ${{ github.sha -> 6 -> '${{' is not closed: expected '}}' after the expression
            ${{ 'never closed }} -> 1 -> '${{' is not closed: expected '}}' after the expression
            a ${{ 1 }} b ${{ 2 } -> 14 -> '${{' is not closed: expected '}}' after the expression
            x ${{ }} -> 3 -> expected an expression between '${{' and '}}'
            ${{}} -> 1 -> expected an expression between '${{' and '}}'
            run ${{ github.sha == }} -> 22 -> expected a value after '==', found the end of the expression
            ok ${{ nope.x }} -> 8 -> unknown context 'nope': expected one of github, env, steps, secrets, matrix, needs, inputs, vars, job, runner, strategy
            """)
    void failsAtItsPlaceInTheText(String text, int column, String problem) {
        ExpressionException e = catchThrowableOfType(ExpressionException.class, () -> Template.parse(text, STEP));
        assertThat(e).isNotNull();
        assertThat(e.problem()).isEqualTo(problem);
        assertThat(e.column()).isEqualTo(column);
    }

    @Test
    void eachExpressionIsEvaluatedOnceInOrder() throws ExpressionException {
        Recorder host = new Recorder(Value.of("h"));
        String out = Template.parse("${{ hashFiles('a') }}-${{ hashFiles('b') }}", STEP)
                .evaluate(new Evaluator(Contexts.none(), host));
        assertThat(out).isEqualTo("h-h");
        assertThat(host.calls).containsExactly("hashFiles('a')", "hashFiles('b')");
    }

    /** The runner makes format('...', ...) of the text and checks that call: 255 arguments, 21,000 characters, 50 levels. */
    @Test
    void theFormatCallTheRunnerMakesIsHeldToItsLimits() throws ExpressionException {
        String many = "${{ 1 }} ".repeat(254);
        assertThat(Template.parse(many, STEP).evaluate(Contexts.none(), Functions.none())).isEqualTo("1 ".repeat(254));
        ExpressionException tooMany = catchThrowableOfType(ExpressionException.class,
                () -> Template.parse(many + "${{ 2 }}", STEP));
        assertThat(tooMany).isNotNull();
        assertThat(tooMany.problem()).isEqualTo(
                "a text holds at most 254 expressions: GitHub evaluates it as one format() call, of at most 255 arguments");
        assertThat(tooMany.offset()).isEqualTo(254 * 9);

        // format('{0}' + literal + "', " + "1" + ")": 10 + 3 + n + 2 + 1 characters.
        String fits = "${{ 1 }}" + "x".repeat(21_000 - 16);
        assertThat(Template.parse(fits, STEP).evaluate(Contexts.none(), Functions.none())).startsWith("1xxx");
        ExpressionException tooLong = catchThrowableOfType(ExpressionException.class,
                () -> Template.parse(fits + "'", STEP));
        assertThat(tooLong).isNotNull();
        assertThat(tooLong.problem()).isEqualTo("the text and its expressions make a format() call of 21002 characters,"
                + " which GitHub evaluates, and it allows 21000");
        assertThat(Template.parse("x".repeat(100_000), STEP).isLiteral()).as("text alone has no limit").isTrue();

        String deep = "!".repeat(49) + "true";
        assertThat(Template.parse("${{ " + deep + " }}", STEP).evaluate(Contexts.none(), Functions.none())).isEqualTo("false");
        ExpressionException tooDeep = catchThrowableOfType(ExpressionException.class,
                () -> Template.parse("x ${{ " + deep + " }}", STEP));
        assertThat(tooDeep).isNotNull();
        assertThat(tooDeep.problem()).isEqualTo(
                "the expression nests deeper than 50 levels, GitHub's limit, in the format() call GitHub makes of the text");
        assertThat(tooDeep.offset()).isEqualTo(2);
    }

    @Test
    void aLongScriptWithOneExpressionIsRefusedAsOnGitHub() {
        String script = "echo ${{ github.sha }}\n" + "echo line\n".repeat(2_200);
        ExpressionException e = catchThrowableOfType(ExpressionException.class, () -> Template.parse(script, STEP));
        assertThat(e).isNotNull();
        assertThat(e.problem()).startsWith("the text and its expressions make a format() call of 22031 characters");
        assertThat(List.of(e.offset())).containsExactly(0);
    }
}
