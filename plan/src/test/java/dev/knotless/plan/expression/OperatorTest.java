package dev.knotless.plan.expression;

import static dev.knotless.plan.expression.Fixtures.CONTEXTS;
import static dev.knotless.plan.expression.Fixtures.STEP;
import static dev.knotless.plan.expression.Fixtures.eval;
import static dev.knotless.plan.expression.Fixtures.evalShow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.plan.expression.Fixtures.Recorder;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every operator, with the runner's coercions. Rows marked "act" are ported from nektos/act's
 * pkg/exprparser/interpreter_test.go; where act departs from GitHub's runner the runner's answer
 * is asserted and the row says so.
 */
class OperatorTest {

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # act TestLiterals
            true -> true
            false -> false
            null -> null
            123 -> 123
            -9.7 -> -9.7
            0xff -> 255
            -2.99e-2 -> -0.0299
            'foo' -> 'foo'
            'it''s foo' -> 'it's foo'
            # GitHub's number test data
            .5 -> 0.5
            +1 -> 1
            -0.0 -> 0
            0o777 -> 511
            1E-1 -> 0.1
            NaN -> NaN
            Infinity -> Infinity
            -Infinity -> -Infinity
            `` -> null
            """)
    void literals(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # act TestOperators
            (false || (false || true)) -> true
            github.action -> 'push'
            github['action'] -> 'push'
            github.action[0] -> null
            github.action['0'] -> null
            fromJSON('[0,1]')[1] -> 1
            # act expects null: the runner floors the index
            fromJSON('[0,1]')[1.1] -> 1
            fromJSON('[0,1]')['1.1'] -> 1
            # act expects 'someone': in the runner a group keeps the filtered array, so [0] applies to each name
            (github.event.commits.*.author.username)[0] -> []
            fromJSON(toJSON(github.event.commits.*.author.username))[0] -> 'someone'
            fromJSON('[0,1]')[2] -> null
            fromJSON('[0,1]')[34553] -> null
            fromJSON('[0,1]')[-1] -> null
            fromJSON('[0,1]')[-34553] -> null
            !true -> false
            1 < 2 -> true
            'b' <= 'a' -> false
            1 > 2 -> false
            'b' >= 'a' -> true
            'a' == 'a' -> true
            'a' != 'a' -> false
            true && false -> false
            true || false -> true
            fromJSON('{}') && true -> true
            fromJSON('{}') || false -> {}
            github.event.commits[0].author.username != github.event.commits[1].author.username -> true
            github.event.commits[0].author.username1 != github.event.commits[1].author.username -> true
            github.event.commits[0].author.username != github.event.commits[1].author.username1 -> true
            # act expects true: two missing keys are both null, and equal, in the runner
            github.event.commits[0].author.username1 != github.event.commits[1].author.username2 -> false
            # act fails here; the runner compares objects by identity
            secrets != env -> true
            secrets == secrets -> true
            """)
    void operatorsAndIndexes(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # act TestOperatorsCompare
            !null -> true
            !-10 -> false
            !0 -> true
            !3.14 -> false
            !'' -> true
            !'abc' -> false
            !fromJSON('{}') -> false
            !fromJSON('[]') -> false
            null == 0 -> true
            true == 1 -> true
            '' == 0 -> true
            '3' == 3 -> true
            0 == null -> true
            1 == true -> true
            0 == '' -> true
            3 == '3' -> true
            'TEST' == 'test' -> true
            true > false -> true
            true >= false -> true
            true >= true -> true
            true != false -> true
            fromJSON('{}') < 2 -> false
            fromJSON('{}') < fromJSON('[]') -> false
            fromJSON('{}') > fromJSON('[]') -> false
            # null and booleans become numbers, then strings compare as numbers
            null == '' -> true
            null == false -> true
            false == '' -> true
            null == 'null' -> false
            true == 'true' -> false
            '1' == true -> true
            ' 0x10 ' == 16 -> true
            '1e3' == 1000 -> true
            '-0' == 0 -> true
            'infinity' == Infinity -> true
            'abc' == NaN -> false
            NaN == NaN -> false
            NaN != NaN -> true
            NaN < 1 -> false
            NaN >= NaN -> false
            -0 == 0 -> true
            # strings compare ignoring case, ordinally
            'abc' == 'ABC' -> true
            'abc' != 'ABC' -> false
            'abc' >= 'ABC' -> true
            'abc' > 'ABC' -> false
            'B' > 'a' -> true
            'a' < '[' -> true
            'A' < '[' -> true
            'ı' == 'I' -> false
            'ı' > 'I' -> true
            'i' == 'İ' -> false
            'ς' == 'Σ' -> true
            'ü' == 'Ü' -> true
            'straße' == 'STRASSE' -> false
            'a' < 'ab' -> true
            '10' < '9' -> true
            '10' < 9 -> false
            # mixed kinds that do not convert never compare
            'abc' < 1 -> false
            'abc' >= 1 -> false
            fromJSON('[]') == 0 -> false
            fromJSON('[]') == '' -> false
            fromJSON('[]') == fromJSON('[]') -> false
            fromJSON('{}') != fromJSON('{}') -> true
            github.event == github.event -> true
            github.event.commits == github['EVENT'].commits -> true
            true == fromJSON('{}') -> false
            # null against null
            null == null -> true
            null >= null -> true
            null > null -> false
            null < 1 -> true
            '' < 1 -> true
            false < true -> true
            false <= 0 -> true
            """)
    void comparisonsCoerceAsTheRunner(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    /** act's TestOperatorsBooleanEvaluation (a row of each kind per operand): && and || give an operand, not a boolean. */
    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            true && true -> true
            true && null -> null
            true && -10 -> -10
            true && 0 -> 0
            true && 3.14 -> 3.14
            true && 0.0 -> 0
            true && Infinity -> Infinity
            true && -Infinity -> -Infinity
            true && NaN -> NaN
            true && '' -> ''
            true && 'abc' -> 'abc'
            false && true -> false
            false && 'abc' -> false
            true || 'abc' -> true
            false || null -> null
            false || -10 -> -10
            false || 0.0 -> 0
            false || '' -> ''
            null && true -> null
            null || 0 -> 0
            -10 && 'abc' -> 'abc'
            -10 || 0 -> -10
            0 && 10 -> 0
            0 || NaN -> NaN
            10 || NaN -> 10
            3.14 && '' -> ''
            Infinity || false -> Infinity
            NaN && true -> NaN
            NaN || 'abc' -> 'abc'
            '' && 'abc' -> ''
            '' || NaN -> NaN
            'abc' && 0 -> 0
            'abc' || 0 -> 'abc'
            0.0 && true -> 0
            -1.5 && true -> true
            # GitHub's op_and and op_or data: n-ary, the decisive operand
            true && 1 && 2 -> 2
            true && 0 && 2 -> 0
            0 || 0 || 2 || 3 -> 2
            false || '' || 'a' || 'b' -> 'a'
            matrix && 123 -> 123
            fromJSON('[]') && 789 -> 789
            """)
    void andAndOrGiveTheDecisiveOperand(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # act TestContexts
            github.action -> 'push'
            github.event.commits[0].message -> 'first'
            github.event.commits[1].message -> null
            fromjson('{"commits":[]}').commits[0].message -> null
            env.TEST -> 'value'
            job.status -> 'success'
            steps.step-id.outputs.name -> 'value'
            steps.step-id.conclusion -> 'success'
            steps.step-id.conclusion && true -> true
            steps.step-id2.conclusion -> 'skipped'
            steps.step-id.outcome == 'success' -> true
            steps['step-id']['outcome'] && true -> true
            steps.step-id2.outcome -> 'failure'
            runner.os -> 'Linux'
            secrets.name -> 'value'
            vars.name -> 'value'
            strategy.fail-fast -> true
            matrix.os -> 'Linux'
            needs.job-id.outputs.output-name -> 'value'
            needs.job-id.result -> 'success'
            contains(needs.*.result, 'success') -> true
            contains(needs.*.result, 'cancelled') -> false
            inputs.name -> 'value'
            # act disables these three as broken; the runner's filters answer them
            contains(steps.*.outcome, 'success') -> true
            contains(steps.*.outcome, 'failure') -> true
            contains(steps.*.outputs.name, 'value') -> true
            # act expects null: a filter on null is an empty filtered array in the runner
            github.event.pull_request.labels.*.name -> []
            # names and keys in any case
            GITHUB.ACTION -> 'push'
            Env.test -> 'value'
            env['TEST'] -> 'value'
            env['test'] -> 'value'
            # a missing key, or a key of something that is no object, is null
            env.MISSING -> null
            env.MISSING.deeper -> null
            env.Empty -> ''
            github.action.length -> null
            matrix.node.x -> null
            """)
    void contextsAndMissingKeys(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # an array's index is the key as a number, floored: GitHub's op_idx data
            matrix.include[null] -> 1
            matrix.include[false] -> 1
            matrix.include[true] -> 2
            matrix.include[' 0.0 '] -> 1
            matrix.include[' 0x02 '] -> 3
            matrix.include[1.9] -> 2
            matrix.include[' asdf '] -> null
            matrix.include[fromjson('[]')] -> null
            matrix.include[fromjson('{}')] -> null
            matrix.include[-1] -> null
            matrix.include[-0.5] -> null
            matrix.include[3] -> null
            matrix.include[Infinity] -> null
            matrix.include[NaN] -> null
            # an object's key is the key as text
            fromJSON('{"5": "five"}')[5] -> 'five'
            fromJSON('{"0.5": "half"}')[.5] -> 'half'
            fromJSON('{"15": "fifteen"}')[0x0f] -> 'fifteen'
            fromJSON('{"NaN": "nan"}')[NaN] -> 'nan'
            fromJSON('{"": "empty"}')[null] -> 'empty'
            fromJSON('{"true": "yes"}')[true] -> 'yes'
            fromJSON('{"Object": "o"}')[fromJSON('{}')] -> null
            fromJSON('{"Object": "o"}')[format('{0}', fromJSON('{}'))] -> 'o'
            fromJSON('{"*": "star", "a": 1}')['*'] -> 'star'
            fromJSON('{"*": "star", "a": 1}')[*] -> ['star', 1]
            fromJson('["one", "two"]')[1] -> 'two'
            (fromJson('["one", "two"]'))[1] -> 'two'
            """)
    void indexesConvertTheirKeyAsTheRunner(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    /** GitHub's op_idx_star data: a filter's items take the next index each, the ones without it drop out. */
    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            github.event.commits.*.author.username -> ['someone', 'someone-else']
            github.event.commits[*].author['username'] -> ['someone', 'someone-else']
            github.event.commits.*.message -> ['first']
            needs.*.result -> ['success', 'failure']
            needs.*.outputs.* -> ['value', 'value']
            env.TEST.* -> []
            matrix.node.* -> []
            fromJSON('[null, false, 1, "s", ["a", "b"], {"p": "v"}]').*.* -> ['a', 'b', 'v']
            fromJSON('[["a0", "a1"], ["b0"], ["c0", "c1"]]')[*][1] -> ['a1', 'c1']
            fromJSON('[["zero", "one"]]')[*][true] -> ['one']
            fromJSON('[["zero", "one"]]')[*]['abc'] -> []
            fromJSON('[{"15": "fifteen"}]')[*][0x0f] -> ['fifteen']
            fromJSON('[{"Object": "o"}]')[*][fromjson('{}')] -> []
            fromJSON('[]')[*][1][2] -> []
            fromJSON('{}').*.bar.baz -> []
            toJSON(fromJSON('{"a": {"foo": 32}, "b": {"foo": 42}}').*.foo) -> '[\\n  32,\\n  42\\n]'
            """)
    void filtersApplyTheNextIndexToEachItem(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value.replace("\\n", "\n"));
    }

    @Test
    void aFilteredArrayStaysFilteredThroughOperatorsButNotThroughJson() throws ExpressionException {
        assertThat(evalShow("(true && github.event.commits.*).author.username")).isEqualTo("['someone', 'someone-else']");
        assertThat(evalShow("(false || github.event.commits.*).author.username")).isEqualTo("['someone', 'someone-else']");
        assertThat(evalShow("fromJSON(toJSON(github.event.commits.*)).author")).isEqualTo("null");
        assertThat(evalShow("github.event.commits.author")).as("a plain array takes no property").isEqualTo("null");
    }

    @Test
    void andAndOrStopAtTheDecisiveOperand() throws ExpressionException {
        Recorder host = new Recorder(Value.FALSE);
        assertThat(run("false && success()", host)).isEqualTo(Value.FALSE);
        assertThat(run("true || failure()", host)).isEqualTo(Value.TRUE);
        assertThat(run("success() && failure() && always()", host)).isEqualTo(Value.FALSE);
        assertThat(run("'' || cancelled() || hashFiles('x') || 'last'", host)).isEqualTo(Value.of("last"));
        assertThat(host.calls).containsExactly("success()", "cancelled()", "hashFiles('x')");
    }

    @Test
    void anIndexIsNotEvaluatedOnWhatIsNoCollection() throws ExpressionException {
        Recorder host = new Recorder(Value.of("k"));
        assertThat(run("github.action[hashFiles('a')]", host)).isEqualTo(Value.NULL);
        assertThat(run("github.nothing.*[hashFiles('b')]", host)).isEqualTo(Value.array());
        assertThat(run("github[hashFiles('c')]", host)).isEqualTo(Value.NULL);
        assertThat(host.calls).as("the filter is a collection, and so is github").containsExactly("hashFiles('b')",
                "hashFiles('c')");
    }

    @Test
    void notGivesABoolean() throws ExpressionException {
        assertThat(eval("!!'a'")).isEqualTo(Value.TRUE);
        assertThat(eval("!!NaN")).isEqualTo(Value.FALSE);
        assertThat(eval("!!-0.0")).isEqualTo(Value.FALSE);
        assertThat(eval("!!fromJson('[]')")).isEqualTo(Value.TRUE);
        assertThat(eval("!!' '")).isEqualTo(Value.TRUE);
    }

    @Test
    void aContextTheHostLeavesOutIsNull() throws ExpressionException {
        Expression e = Expression.parse("vars.name || 'default'", STEP);
        assertThat(e.evaluate(Contexts.none(), Functions.none())).isEqualTo(Value.of("default"));
        assertThat(e.evaluate(Contexts.of(Map.of("VARS", Value.object(Map.of("NAME", Value.of("set"))))), Functions.none()))
                .isEqualTo(Value.of("set"));
        assertThat(e.evaluate(Contexts.of(CONTEXTS), Functions.none())).isEqualTo(Value.of("value"));
    }

    private static Value run(String expression, Functions host) throws ExpressionException {
        return Expression.parse(expression, STEP).evaluate(Contexts.of(CONTEXTS), host);
    }
}
