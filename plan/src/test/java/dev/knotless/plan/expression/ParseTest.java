package dev.knotless.plan.expression;

import static dev.knotless.plan.expression.Fixtures.ABCD;
import static dev.knotless.plan.expression.Fixtures.STEP;
import static dev.knotless.plan.expression.Fixtures.parseError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.plan.expression.Expression.And;
import dev.knotless.plan.expression.Expression.Call;
import dev.knotless.plan.expression.Expression.Compare;
import dev.knotless.plan.expression.Expression.Context;
import dev.knotless.plan.expression.Expression.Filter;
import dev.knotless.plan.expression.Expression.Index;
import dev.knotless.plan.expression.Expression.Literal;
import dev.knotless.plan.expression.Expression.Not;
import dev.knotless.plan.expression.Expression.Operator;
import dev.knotless.plan.expression.Expression.Or;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The grammar as the runner's lexer and parser have it: precedence, what is a number, a name, a
 * property or a function, and errors at their column saying what was expected.
 */
class ParseTest {

    /** The tree, written back with every binary operator in parentheses. */
    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            a || b && c -> (a || (b && c))
            a && b || c && d -> ((a && b) || (c && d))
            (a || b) && c -> ((a || b) && c)
            a && b && c -> (a && b && c)
            (a && b) && (c && d) -> (a && b && c && d)
            a || (b || c) -> (a || b || c)
            a && (b || c) && d -> (a && (b || c) && d)
            a == b < c -> (a == (b < c))
            a < b == c > d -> ((a < b) == (c > d))
            a == b == c -> ((a == b) == c)
            a != b <= c >= d -> (a != ((b <= c) >= d))
            !a == b -> (!a == b)
            !a.b -> !a.b
            !!a -> !!a
            !(a || b) -> !(a || b)
            a == !b -> (a == !b)
            a \\n &&\\tb -> (a && b)
            a\\u00A0&&\\u2003b -> (a && b)
            a.b['c'].*[0].d[*] -> a.b.c.*[0].d.*
            a['b c'] -> a['b c']
            a . b . * -> a.b.*
            a.true.null.NaN.format -> a.true.null.NaN.format
            a.b-c._d -> a.b-c._d
            A.B -> a.B
            a[b[c]] -> a[b[c]]
            (a)[0] -> a[0]
            CONTAINS(a, 'x') -> contains(a, 'x')
            tojson(a) -> toJSON(a)
            fromJson(a) -> fromJSON(a)
            format ('{0}', a) -> format('{0}', a)
            success() -> success()
            ALWAYS() -> always()
            'it''s' -> 'it''s'
            '' -> ''
            null -> null
            true -> true
            False -> ERROR
            -2.99e-2 -> -0.0299
            0xff -> 255
            +1 -> 1
            .5 -> 0.5
            -.5 -> -0.5
            0o17 -> 15
            1E+1 -> 10
            NaN -> NaN
            Infinity -> Infinity
            -Infinity -> -Infinity
            a[-1] -> a[-1]
            a[.5] -> a[0.5]
            a==.5 -> (a == 0.5)
            `` -> null
            `   ` -> null
            """)
    void parsesWithGitHubsPrecedence(String expression, String tree) {
        String text = expression.replace("\\n", "\n").replace("\\t", "\t").replace("\\u00A0", "\u00A0")
                .replace("\\u2003", "\u2003");
        if (tree.equals("ERROR")) {
            assertThat(parseError(text, ABCD).problem()).isEqualTo("unknown context 'False': expected one of a, b, c, d");
            return;
        }
        try {
            assertThat(Expression.parse(text, ABCD)).hasToString(tree);
        } catch (ExpressionException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void nodesKeepTheirTokensOffsets() throws ExpressionException {
        Expression e = Expression.parse("!github.event['x'] == contains(needs.*.result, 1)", STEP);
        Compare eq = (Compare) e;
        assertThat(eq.operator()).isEqualTo(Operator.EQ);
        assertThat(eq.offset()).isEqualTo(19);
        Not not = (Not) eq.left();
        assertThat(not.offset()).isZero();
        Index index = (Index) not.operand();
        assertThat(index.offset()).isEqualTo(13);
        assertThat(index.key()).isEqualTo(new Literal(Value.of("x"), 14));
        Index event = (Index) index.target();
        assertThat(event.offset()).isEqualTo(7);
        assertThat(event.target()).isEqualTo(new Context("github", 1));
        assertThat(event.key()).isEqualTo(new Literal(Value.of("event"), 8));
        Call call = (Call) eq.right();
        assertThat(call.name()).isEqualTo("contains");
        assertThat(call.offset()).isEqualTo(22);
        Index result = (Index) call.arguments().get(0);
        assertThat(result.target()).isEqualTo(new Filter(new Context("needs", 31), 36));
        assertThat(call.arguments().get(1)).isEqualTo(new Literal(Value.of(1), 47));
    }

    @Test
    void andAndOrAreFlatAtTheirFirstOperator() throws ExpressionException {
        Or or = (Or) Expression.parse("a || b && c || (d || a)", ABCD);
        assertThat(or.offset()).isEqualTo(2);
        assertThat(or.operands()).hasSize(4);
        assertThat(or.operands().get(1)).isInstanceOf(And.class);
        assertThat(((And) or.operands().get(1)).offset()).isEqualTo(7);
    }

    @Test
    void saysWhichContextsAndFunctionsItUses() throws ExpressionException {
        Expression e = Expression.parse(
                "contains(GITHUB.event.labels.*.name, 'bug') && secrets.TOKEN != '' || Secrets.x && hashfiles('a') && success()"
                        + " && github.ref",
                STEP);
        assertThat(e.contexts()).containsExactly("github", "secrets");
        assertThat(e.functions()).containsExactly("contains", "hashFiles", "success");
        assertThat(Expression.parse("'no contexts'", STEP).contexts()).isEmpty();
        assertThat(Expression.parse("'no contexts'", STEP).functions()).isEmpty();
    }

    @Test
    void aNameBeforeParenthesesIsAFunctionEvenAcrossBlanks() {
        assertThat(parseError("github ('x')", STEP).problem()).isEqualTo(
                "unknown function 'github': expected a built-in one or one of hashFiles, success, failure, always, cancelled");
    }

    /** column, then the problem: each says what was expected and what was found. */
    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            1 < -> 4 -> expected a value after '<', found the end of the expression
            1 < ) -> 5 -> expected a value after '<', found ')'
            > 1 -> 1 -> expected a value, found '>'
            a && -> 5 -> expected a value after '&&', found the end of the expression
            1 2 -> 3 -> expected an operator or the end of the expression, found '2'
            (1)2 -> 4 -> expected an operator or the end of the expression, found '2'
            a.() -> 3 -> expected a property name or '*' after '.', found '('
            a.1 -> 3 -> expected a property name or '*' after '.', found '1'
            a..b -> 3 -> expected a property name or '*' after '.', found '.'
            a. -> 3 -> expected a property name or '*' after '.', found the end of the expression
            a.b@r -> 3 -> expected a property name or '*' after '.', found 'b@r'
            a[*x] -> 4 -> expected ']' after '[*', found 'x'
            a[] -> 3 -> expected a value after '[', found ']'
            a[1 -> 4 -> expected an operator or ']' to close the '[' at column 2, found the end of the expression
            a[1, 2] -> 4 -> expected an operator or ']' to close the '[' at column 2, found ','
            (1, -> 3 -> expected an operator or ')' to close the '(' at column 1, found ','
            ` true ||( false && false` -> 25 -> expected an operator or ')' to close the '(' at column 9, found the end of the expression
            () -> 2 -> expected a value after '(', found ')'
            endswith(1, 2 a) -> 15 -> expected an operator, ',' or ')' to end the arguments of endsWith, found 'a'
            contains(a,) -> 12 -> expected a value after ',', found ')'
            contains(,a) -> 10 -> expected a value after '(', found ','
            format('x' -> 11 -> expected an operator, ',' or ')' to end the arguments of format, found the end of the expression
            'abc'[0] -> 6 -> expected an operator or the end of the expression, found '['
            'abc'.length -> 6 -> expected an operator or the end of the expression, found '.'
            1.5.toString -> 1 -> '1.5.toString' is not a number: expected digits with an optional point and exponent, or 0x and hex digits
            -0xFF -> 1 -> '-0xFF' is not a number: expected digits with an optional point and exponent, or 0x and hex digits
            0X10 -> 1 -> '0X10' is not a number: expected digits with an optional point and exponent, or 0x and hex digits
            - 1 -> 1 -> '-' is not a number: expected digits with an optional point and exponent, or 0x and hex digits
            a == 'it''s -> 6 -> the string is not closed: expected a ' to end it
            1 = 2 -> 3 -> expected an operator or the end of the expression, found '='
            1 =2 =3 -> 3 -> expected an operator or the end of the expression, found '=2'
            1 & 2 -> 3 -> expected an operator or the end of the expression, found '&'
            1 | 2 -> 3 -> expected an operator or the end of the expression, found '|'
            1 @abc 2 -> 3 -> expected an operator or the end of the expression, found '@abc'
            "quoted" -> 1 -> expected a value, found '"quoted"'
            😊 Emoji -> 1 -> expected a value, found '😊'
            github/workflow.md -> 1 -> expected a value, found 'github/workflow'
            .github/workflow -> 1 -> '.github/workflow' is not a number: expected digits with an optional point and exponent, or 0x and hex digits
            * -> 1 -> expected a value, found '*'
            a.b c -> 5 -> expected an operator or the end of the expression, found 'c'
            a !b -> 3 -> expected an operator or the end of the expression, found '!'
            e.x -> 1 -> unknown context 'e': expected one of a, b, c, d
            a && (b || nope) -> 12 -> unknown context 'nope': expected one of a, b, c, d
            nope() -> 1 -> unknown function 'nope': expected a built-in one or one of success, failure, always, cancelled
            hashFiles('x') -> 1 -> unknown function 'hashFiles': expected a built-in one or one of success, failure, always, cancelled
            contains(a) -> 1 -> contains takes 2 arguments, found 1
            startsWith(a, b, c) -> 1 -> startsWith takes 2 arguments, found 3
            join() -> 1 -> join takes 1 to 2 arguments, found 0
            toJSON(a, b) -> 1 -> toJSON takes 1 argument, found 2
            format() -> 1 -> format takes at least 1 argument, found 0
            a || SUCCESS(1) -> 6 -> success takes 0 arguments, found 1
            case(true, 1) -> 1 -> case takes at least 3 arguments, found 2
            case(true, 1, false, 2) -> 1 -> case takes an odd number of arguments (pairs of a predicate and its value, then the default), found 4
            """)
    void failsAtTheColumnSayingWhatWasExpected(String expression, int column, String problem) {
        ExpressionException e = parseError(expression, ABCD);
        assertThat(e.problem()).isEqualTo(problem);
        assertThat(e.column()).isEqualTo(column);
        assertThat(e.offset()).isEqualTo(column - 1);
        assertThat(e.getMessage()).isEqualTo("column " + column + ": " + e.problem());
    }

    @Test
    void hostFunctionsTakeTheArgumentsTheScopeDeclares() throws ExpressionException {
        assertThat(parseError("hashFiles()", STEP).problem()).isEqualTo("hashFiles takes at least 1 argument, found 0");
        String many = "hashFiles(" + "'a', ".repeat(254) + "'a')";
        assertThat(Expression.parse(many, STEP).functions()).containsExactly("hashFiles");
        assertThat(parseError("hashFiles(" + "'a', ".repeat(255) + "'a')", STEP).problem())
                .isEqualTo("hashFiles takes at least 1 argument, found 256");
        Scope custom = Scope.of(List.of(), new HostFunction("pick", 1, 2));
        assertThat(parseError("pick(1, 2, 3)", custom).problem()).isEqualTo("pick takes 1 to 2 arguments, found 3");
        assertThat(parseError("github", Scope.of(List.of())).problem())
                .isEqualTo("unknown context 'github': no context is available here");
        assertThat(parseError("nope()", Scope.of(List.of())).problem()).isEqualTo("unknown function 'nope': expected a built-in one");
    }

    @Test
    void aScopeIsCheckedWhenMade() {
        assertThatThrownBy(() -> Scope.of(List.of("1abc"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a context is named like a property, not '1abc'");
        assertThatThrownBy(() -> Scope.of(List.of("env", "ENV"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("context ENV is listed twice");
        assertThatThrownBy(() -> new HostFunction("Format", 1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Format is built in; a host cannot answer it");
        assertThatThrownBy(() -> new HostFunction("f", 2, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Scope.of(List.of(), HostFunction.SUCCESS, new HostFunction("SUCCESS", 0, 1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("function SUCCESS is listed twice");
        assertThat(STEP.context("GitHub")).isEqualTo("github");
        assertThat(STEP.context("gh")).isNull();
        assertThat(STEP.function("HASHFILES")).isEqualTo(HostFunction.HASH_FILES);
        assertThat(HostFunction.ALWAYS.isStatus()).isTrue();
        assertThat(HostFunction.HASH_FILES.isStatus()).isFalse();
    }

    @Test
    void treesAreCheckedWhenBuiltByHand() {
        assertThatThrownBy(() -> new Literal(Value.array(), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Call("contains", List.of(), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new And(List.of(new Literal(Value.TRUE, 0)), 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
