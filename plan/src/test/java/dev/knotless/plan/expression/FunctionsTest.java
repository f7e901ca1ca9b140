package dev.knotless.plan.expression;

import static dev.knotless.plan.expression.Fixtures.CONTEXTS;
import static dev.knotless.plan.expression.Fixtures.STEP;
import static dev.knotless.plan.expression.Fixtures.evalError;
import static dev.knotless.plan.expression.Fixtures.evalShow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.knotless.plan.expression.Fixtures.Recorder;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The built-in functions, and calls of the host's. Rows marked "act" are ported from nektos/act's
 * pkg/exprparser/functions_test.go; the others follow GitHub's runner and its test data.
 */
class FunctionsTest {

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # act TestFunctionContains
            contains('search', 'item') -> false
            cOnTaInS('Hello', 'll') -> true
            contains('HELLO', 'll') -> true
            contains('3.141592', 3.14) -> true
            contains(3.141592, '3.14') -> true
            contains(3.141592, 3.14) -> true
            contains(true, 'u') -> true
            contains(null, '') -> true
            contains(fromJSON('["first","second"]'), 'first') -> true
            contains(fromJSON('[null,"second"]'), '') -> true
            contains(fromJSON('["","second"]'), null) -> true
            contains(fromJSON('[true,"second"]'), 'true') -> false
            contains(fromJSON('["true","second"]'), true) -> false
            contains(fromJSON('[3.14,"second"]'), '3.14') -> true
            contains(fromJSON('[3.14,"second"]'), 3.14) -> true
            contains(fromJSON('["","second"]'), fromJSON('[]')) -> false
            contains(fromJSON('["","second"]'), fromJSON('{}')) -> false
            # act expects true: a property of a plain (not filtered) array is null in the runner
            contains(fromJSON('[{ "first": { "result": "success" }},{ "second": { "result": "success" }}]').first.result, 'success') -> false
            contains(fromJSON('[{ "result": "success" },{ "result": "failure" }]').*.result, 'failure') -> true
            contains(fromJSON('[{ "result": "failure" },{ "result": "success" }]').*.result, 'success') -> true
            contains(fromJSON('[{ "result": "failure" },{ "result": "success" }]').*.result, 'notthere') -> false
            contains(fromJSON('[{ "result": "failure", "outputs": { "key": "val1" } },{ "result": "success", "outputs": { "key": "val2" } }]').*.outputs.key, 'val1') -> true
            contains(fromJSON('[{ "result": "failure", "outputs": { "key": "val1" } },{ "result": "success", "outputs": { "key": "val2" } }]').*.outputs.key, 'missing') -> false
            # GitHub's contains data and the runner's rules
            contains('abCdEf', 'cDe') -> true
            contains('abcdef', '') -> true
            contains('true', true) -> true
            contains('asdf', null) -> true
            contains('true', false) -> false
            contains(fromJSON('[""]'), false) -> true
            contains(fromJSON('[0]'), false) -> true
            contains(fromJSON('[123.0]'), '123') -> true
            contains(fromJSON('["ABC"]'), 'abc') -> true
            contains(fromJSON('[]'), '') -> false
            contains(fromJSON('{"a": "x"}'), 'x') -> false
            contains('abc', fromJSON('["b"]')) -> false
            contains(github.event.commits, github.event.commits[0]) -> true
            contains(github.event.commits, fromJSON('{"author": {"username": "someone"}, "message": "first"}')) -> false
            contains('straße', 'SS') -> false
            """)
    void containsLooksForTextOrAnItem(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # act TestFunctionStartsWith and TestFunctionEndsWith
            startsWith('search', 'se') -> true
            startsWith('search', 'sa') -> false
            startsWith('123search', '123s') -> true
            startsWith(123, 's') -> false
            startsWith(123, '12') -> true
            startsWith('123', 12) -> true
            startsWith(null, '42') -> false
            startsWith('null', null) -> true
            startsWith('null', '') -> true
            endsWith('search', 'ch') -> true
            endsWith('search', 'sa') -> false
            endsWith('search123s', '123s') -> true
            endsWith(123, 's') -> false
            endsWith(123, '23') -> true
            endsWith('123', 23) -> true
            endsWith(null, '42') -> false
            endsWith('null', null) -> true
            endsWith('null', '') -> true
            # case, as GitHub's data has it
            startsWith('ABCDEFGHIJKLMNOPQRSTUVWXYZ_asdf', 'abcdefghijklmnopqrstuvwxyz') -> true
            startsWith('ς_asdf', 'Σ') -> true
            startsWith('Ü_asdf', 'ü') -> true
            startsWith('АБВГД_asdf', 'абвгд') -> true
            startsWith('i_asdf', 'İ') -> false
            startsWith('ı_asdf', 'I') -> false
            endsWith('refs/heads/MAIN', '/main') -> true
            startsWith(fromJSON('["a"]'), 'a') -> false
            startsWith('Array', fromJSON('["a"]')) -> false
            endsWith(1.50, '.5') -> true
            """)
    void startsWithAndEndsWithIgnoreCase(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # act TestFunctionFormat
            format('text') -> 'text'
            format('Hello {0} {1} {2}!', 'Mona', 'the', 'Octocat') -> 'Hello Mona the Octocat!'
            format('{{Hello {0} {1} {2}!}}', 'Mona', 'the', 'Octocat') -> '{Hello Mona the Octocat!}'
            format('{{0}}', 'test') -> '{0}'
            format('{{{0}}}', 'test') -> '{test}'
            format('}}') -> '}'
            format('Hello "{0}" {1} {2} {3} {4}', null, true, -3.14, NaN, Infinity) -> 'Hello "" true -3.14 NaN Infinity'
            format('Hello "{0}" {1} {2}', fromJSON('[0, true, "abc"]'), fromJSON('[{"a":1}]'), fromJSON('{"a":{"b":1}}')) -> 'Hello "Array" Array Object'
            format(true) -> 'true'
            format('echo Hello {0} ${{Test}}', github.undefined_property) -> 'echo Hello  ${Test}'
            format('{0} {1} {2} {3}', 1.0, 1.1, 1234567890.0, 12345678901234567890.0) -> '1 1.1 1234567890 1.23456789012346E+19'
            # GitHub's format data
            format(null) -> ''
            format('', 'unused') -> ''
            format('123{0}456{0}789', 'abc') -> '123abc456abc789'
            format('{{{{0}}}}', 'abc') -> '{{0}}'
            format('}}{{}}', 'abc') -> '}{}'
            format('{0}', -0) -> '0'
            format('{1}{0}', 'a', 'b') -> 'ba'
            format('{0:}', 'empty specifiers are allowed') -> 'empty specifiers are allowed'
            format('{00001}', 'a', 'b') -> 'b'
            format('{0}', fromJSON('{"x": 1}').x) -> '1'
            """)
    void formatFillsPlaceholders(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    /** The runner's errors (act's wording differs); the column is the call's. */
    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            format('{0}}', '{1}', 'World') -> format: '{0}}' is not a valid format at index 3: expected '}}' for a '}'
            format('{0', '{1}', 'World') -> format: '{0' is not a valid format at index 0: expected a placeholder such as {0}, or '{{' for a '{'
            format('{2}', '{1}', 'World') -> format: '{2}' uses argument {2}, but only 2 follow the format
            format('{0}{1}', 'abc') -> format: '{0}{1}' uses argument {1}, but only 1 follows the format
            format('{0}') -> format: '{0}' uses argument {0}, but none follows the format
            format('{2147483648}') -> format: '{2147483648}' is not a valid format at index 0: expected a placeholder such as {0}, or '{{' for a '{'
            format('{256}') -> format: '{256}' is not a valid format at index 0: expected a placeholder such as {0}, or '{{' for a '{'
            format('{255}') -> format: '{255}' uses argument {255}, but none follows the format
            format('{}', 'a') -> format: '{}' is not a valid format at index 0: expected a placeholder such as {0}, or '{{' for a '{'
            format('{ 0}', 'a') -> format: '{ 0}' is not a valid format at index 0: expected a placeholder such as {0}, or '{{' for a '{'
            format('}0{') -> format: '}0{' is not a valid format at index 0: expected '}}' for a '}'
            format('{0}{', '') -> format: '{0}{' is not a valid format at index 3: expected a placeholder such as {0}, or '{{' for a '{'
            format('{0:x}', 'a') -> format: the format specifiers 'x' are not valid for a String
            format('{0:x}', fromJSON('[]')) -> format: the format specifiers 'x' are not valid for an Array
            format('{0:}}}', 1) -> format: the format specifiers '}' are not valid for a Number
            format('{0:', 1) -> format: '{0:' is not a valid format at index 0: expected a placeholder such as {0}, or '{{' for a '{'
            """)
    void formatFailsOnABadFormat(String expression, String problem) {
        ExpressionException e = evalError(expression);
        assertThat(e.problem()).isEqualTo(problem);
        assertThat(e.column()).isEqualTo(1);
    }

    @Test
    void formatChecksTheFormatFirstAndEvaluatesOnlyTheArgumentsItUsesOnce() throws ExpressionException {
        Recorder host = new Recorder(Value.of("h"));
        assertThat(run("format('{1}{1}-{1}', hashFiles('unused'), hashFiles('used'))", host)).isEqualTo(Value.of("hh-h"));
        assertThat(host.calls).containsExactly("hashFiles('used')");
        host.calls.clear();
        ExpressionException e = catchThrowableOfType(ExpressionException.class,
                () -> run("format('{0}{', hashFiles('never'))", host));
        assertThat(e).isNotNull();
        assertThat(host.calls).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # act TestFunctionJoin
            join(fromJSON('["a", "b"]'), ',') -> 'a,b'
            join('string', ',') -> 'string'
            join(1, ',') -> '1'
            join(null, ',') -> ''
            join(fromJSON('["a", "b", null]'), null) -> 'ab'
            join(fromJSON('["a", "b"]')) -> 'a,b'
            join(fromJSON('["a", "b", null]'), 1) -> 'a1b1'
            # GitHub's join data
            join(github.event.commits.*.author.username, ', ') -> 'someone, someone-else'
            join(true) -> 'true'
            join(123.456) -> '123.456'
            join(fromJSON('[]')) -> ''
            join(fromJSON('{}')) -> ''
            join(fromJSON('{"key1": "value1"}')) -> ''
            join(fromJSON('[null, true, 123.456, "abc", [], ["def"], {}, {"key1": "value1"}]')) -> ',true,123.456,abc,Array,Array,Object,Object'
            join(fromJSON('["1", "2"]'), true) -> '1true2'
            join(fromJSON('["1", "2"]'), ' | ') -> '1 | 2'
            join(fromJSON('["1", "2"]'), fromJSON('[]')) -> '1,2'
            join(fromJSON('["1", "2"]'), fromJSON('{}')) -> '1,2'
            join(fromJSON('["only"]'), '+') -> 'only'
            """)
    void joinJoinsAnArrayOrGivesAPrimitiveAsText(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    @Test
    void joinEvaluatesItsSeparatorOnlyBetweenItems() throws ExpressionException {
        Recorder host = new Recorder(Value.of("-"));
        assertThat(run("join(fromJSON('[1]'), hashFiles('a'))", host)).isEqualTo(Value.of("1"));
        assertThat(run("join('x', hashFiles('b'))", host)).isEqualTo(Value.of("x"));
        assertThat(host.calls).isEmpty();
        assertThat(run("join(fromJSON('[1, 2]'), hashFiles('c'))", host)).isEqualTo(Value.of("1-2"));
        assertThat(host.calls).containsExactly("hashFiles('c')");
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # act TestFunctionToJSON
            toJSON(secrets) -> '{\\n  "name": "value"\\n}'
            toJSON(null) -> 'null'
            # GitHub's tojson data
            tojson(-0) -> '0'
            tojson(1234.5) -> '1234.5'
            tojson('') -> '""'
            tojson('abc''def') -> '"abc'def"'
            tojson('a\\b"c') -> '"a\\\\b\\"c"'
            toJSON(needs.*.result) -> '[\\n  "success",\\n  "failure"\\n]'
            toJSON(fromJSON('{"a": []}')) -> '{\\n  "a": []\\n}'
            """)
    void toJsonWritesAsTheRunner(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value.replace("\\n", "\n"));
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # act TestFunctionFromJSON
            fromJSON('{"foo":"bar"}') -> {foo: 'bar'}
            # GitHub's fromJSON data
            fromJSON('null') -> null
            fromJSON('false') -> false
            fromJSON('-1234.5') -> -1234.5
            fromJSON('"abc''def"') -> 'abc'def'
            fromJSON('[[1, 2, 3], ["abc"], [true, false, null, [], {}]]') -> [[1, 2, 3], ['abc'], [true, false, null, [], {}]]
            fromJSON(' {"a": 1} ') -> {a: 1}
            fromJSON(toJSON(github.event.commits[0])) -> {author: {username: 'someone'}, message: 'first'}
            fromJSON(env.Number) -> 42
            fromJSON(fromJSON('"[1]"')) -> [1]
            fromJSON(true) -> true
            """)
    void fromJsonReadsJson(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            fromJSON('') -> 1 -> fromJSON: expected a JSON value, found empty text
            fromJSON(null) -> 1 -> fromJSON: expected a JSON value, found empty text
            'x' && fromJSON('{') -> 8 -> fromJSON: not JSON at line 1, column 2:
            fromJSON(fromJSON('{}')) -> 1 -> fromJSON: not JSON at line 1, column 1: Unrecognized token 'Object'
            """)
    void fromJsonFailsOnWhatIsNotJson(String expression, int column, String problem) {
        ExpressionException e = evalError(expression);
        assertThat(e.problem()).startsWith(problem);
        assertThat(e.column()).isEqualTo(column);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            # GitHub's case data
            case(true, 'first', 'default') -> 'first'
            case(false, 'first', 'default') -> 'default'
            case(false, 'first', true, 'second', 'default') -> 'second'
            case(github.ref == 'refs/heads/main', 'main', github.event_name == 'pull_request', 'pr', 'other') -> 'main'
            case(github.ref == 'refs/heads/dev', 'main', github.event_name == 'push', 'push', 'other') -> 'push'
            case(true, 123, 456) -> 123
            case(true, false, true) -> false
            case(false, 'first', '') -> ''
            case(true, fromJSON('[1,2,3]'), 'default') -> [1, 2, 3]
            case(false, 'first', false, 'second', true, 'third', false, 'fourth', 'default') -> 'third'
            """)
    void caseChoosesByTheFirstTruePredicate(String expression, String value) throws ExpressionException {
        assertThat(evalShow(expression)).isEqualTo(value);
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            case('not a boolean', 'first', 'default') -> 6 -> case: predicate 1 must be a Boolean, was a String
            case(false, 1, 1, 'first', 'default') -> 16 -> case: predicate 2 must be a Boolean, was a Number
            case(null, 'first', 'default') -> 6 -> case: predicate 1 must be a Boolean, was a Null
            case(fromJSON('[]'), 'first', 'default') -> 6 -> case: predicate 1 must be a Boolean, was an Array
            case(fromJSON('{}'), 'first', 'default') -> 6 -> case: predicate 1 must be a Boolean, was an Object
            """)
    void caseWantsBooleanPredicates(String expression, int column, String problem) {
        ExpressionException e = evalError(expression);
        assertThat(e.problem()).isEqualTo(problem);
        assertThat(e.column()).isEqualTo(column);
    }

    @Test
    void caseEvaluatesOnlyWhatItChooses() throws ExpressionException {
        Recorder host = new Recorder(Value.TRUE);
        assertThat(run("case(true, 'a', hashFiles('x'), 'b', hashFiles('y'))", host)).isEqualTo(Value.of("a"));
        assertThat(run("case(false, hashFiles('v'), success(), 'b', hashFiles('y'))", host)).isEqualTo(Value.of("b"));
        assertThat(host.calls).containsExactly("success()");
    }

    @Test
    void containsAndStartsWithEvaluateTheirSecondArgumentOnlyWhenTheFirstCanHoldIt() throws ExpressionException {
        Recorder host = new Recorder(Value.of("x"));
        assertThat(run("contains(fromJSON('{}'), hashFiles('a'))", host)).isEqualTo(Value.FALSE);
        assertThat(run("contains(fromJSON('[]'), hashFiles('b'))", host)).isEqualTo(Value.FALSE);
        assertThat(run("startsWith(fromJSON('[]'), hashFiles('c'))", host)).isEqualTo(Value.FALSE);
        assertThat(host.calls).isEmpty();
        assertThat(run("contains('xyz', hashFiles('d'))", host)).isEqualTo(Value.TRUE);
        assertThat(host.calls).containsExactly("hashFiles('d')");
    }

    @Test
    void theHostAnswersItsFunctionsUnderTheDeclaredNameWithEvaluatedArguments() throws ExpressionException {
        Recorder host = new Recorder(Value.of("0123abcd"));
        Value v = run("format('key-{0}', HASHFILES('**/go.sum', github.action, 1 == 1, needs.*.result))", host);
        assertThat(v).isEqualTo(Value.of("key-0123abcd"));
        assertThat(host.calls).containsExactly("hashFiles('**/go.sum', 'push', true, ['success', 'failure'])");
    }

    @Test
    void aHostsErrorWithoutAPlaceGetsTheCalls() {
        Functions failing = (name, args) -> {
            throw new ExpressionException("hashFiles: no such directory", -1);
        };
        ExpressionException e = catchThrowableOfType(ExpressionException.class, () -> run("'a' && hashFiles('x')", failing));
        assertThat(e).isNotNull();
        assertThat(e.getMessage()).isEqualTo("column 8: hashFiles: no such directory");
        ExpressionException none = catchThrowableOfType(ExpressionException.class,
                () -> run("always()", Functions.none()));
        assertThat(none).isNotNull();
        assertThat(none.getMessage()).isEqualTo("column 1: always() cannot be evaluated here");
    }

    @Test
    void builtInNamesMatchInAnyCase() throws ExpressionException {
        assertThat(evalShow("FORMAT('{0}', TOJSON(FROMJSON('[1]')))")).isEqualTo("'[\n  1\n]'");
        assertThat(evalShow("StartsWith('Ab', 'a') && ENDSWITH('Ab', 'B') && Contains('Ab', 'b') && Join('a') == 'a'"))
                .isEqualTo("true");
        assertThat(Expression.parse("CASE(true, 1, 2)", STEP).functions()).containsExactly("case");
        assertThat(List.of(Builtin.values()).stream().map(b -> b.spelling).toList()).containsExactly("contains",
                "startsWith", "endsWith", "format", "join", "toJSON", "fromJSON", "case");
    }

    private static Value run(String expression, Functions host) throws ExpressionException {
        return Expression.parse(expression, STEP).evaluate(Contexts.of(CONTEXTS), host);
    }
}
