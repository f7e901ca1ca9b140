package dev.knotless.plan.expression;

import static dev.knotless.plan.expression.Fixtures.json;
import static dev.knotless.plan.expression.Fixtures.show;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.knotless.plan.expression.Value.ObjectValue;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code toJSON}'s layout and escapes (GitHub's tojson test data, Newtonsoft's escaping) and what {@code fromJSON} reads. */
class JsonTest {

    @Test
    void writesScalarsAsTheRunnerDoes() {
        assertThat(Json.write(Value.NULL)).isEqualTo("null");
        assertThat(Json.write(Value.TRUE)).isEqualTo("true");
        assertThat(Json.write(Value.of(-0.0))).isEqualTo("0");
        assertThat(Json.write(Value.of(-1234.5))).isEqualTo("-1234.5");
        assertThat(Json.write(Value.of(1e20))).isEqualTo("1E+20");
        assertThat(Json.write(Value.of(Double.NaN))).as("as the runner prints it, not JSON").isEqualTo("NaN");
        assertThat(Json.write(Value.of("abc'def"))).isEqualTo("\"abc'def\"");
        assertThat(Json.write(Value.array())).isEqualTo("[]");
        assertThat(Json.write(Value.object(Map.of()))).isEqualTo("{}");
    }

    @Test
    void writesTwoSpacesALevelAndEmptyCollectionsInline() {
        Value v = json("""
                {"nested-one": {"one": 1, "two": [true, null, [], {}]}, "s": "x", "a": [[1, 2], ["abc"]]}""");
        assertThat(Json.write(v)).isEqualTo("""
                {
                  "nested-one": {
                    "one": 1,
                    "two": [
                      true,
                      null,
                      [],
                      {}
                    ]
                  },
                  "s": "x",
                  "a": [
                    [
                      1,
                      2
                    ],
                    [
                      "abc"
                    ]
                  ]
                }""");
    }

    /** Newtonsoft's JsonConvert.ToString: short escapes, other controls and three line separators as lower-case u-escapes. */
    @Test
    void escapesStringsAsNewtonsoftDoes() {
        String s = "q\" b\\ n\n r\r t\t f\f b\b nul\u0000 us\u001f del\u007f nel\u0085 ls\u2028 ps\u2029 é 😊 <&> '/";
        assertThat(Json.write(Value.of(s))).isEqualTo("\"q\\\" b\\\\ n\\n r\\r t\\t f\\f b\\b nul\\u0000 us\\u001f del\u007f"
                + " nel\\u0085 ls\\u2028 ps\\u2029 é 😊 <&> '/\"");
        assertThat(Json.write(Value.object(Map.of("k\"ey", Value.of(1))))).isEqualTo("{\n  \"k\\\"ey\": 1\n}");
    }

    /** On a thread with a 256 KiB stack, which a writer that recursed per level would overflow. */
    @Test
    void writesAHostsDeepValueWithoutRecursion() throws Exception {
        Value deep = Value.of("leaf");
        for (int i = 0; i < 3_000; i++) {
            deep = Value.array(deep);
        }
        Value built = deep;
        java.util.concurrent.atomic.AtomicReference<Object> result = new java.util.concurrent.atomic.AtomicReference<>();
        Thread writer = new Thread(null, () -> {
            try {
                result.set(Json.write(built));
            } catch (Throwable t) {
                result.set(t);
            }
        }, "small stack", 256 * 1024);
        writer.start();
        writer.join(Duration.ofSeconds(60));
        assertThat(result.get()).isInstanceOfSatisfying(String.class, out -> assertThat(out)
                .startsWith("[\n  [\n    [").contains("\"leaf\"").endsWith("\n  ]\n]"));
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            null -> null
            true -> true
            -0 -> 0
            123456789 -> 123456789
            -1234.5 -> -1234.5
            12345678901234567890 -> 1.23456789012346E+19
            1e400 -> Infinity
            "abc'def" -> 'abc'def'
            [1, "a", [true, null], {}] -> [1, 'a', [true, null], {}]
            {"one": "value one", "two": {"x": []}} -> {one: 'value one', two: {x: []}}
            ` [1] ` -> [1]
            1 2 -> 1
            {} trailing text -> {}
            {"a": 1}} -> {a: 1}
            // a comment\\n[1] -> [1]
            /* a comment */ 2 -> 2
            ['single', 'quotes'] -> ['single', 'quotes']
            {unquoted: 1} -> {unquoted: 1}
            [1, 2, ] -> [1, 2]
            [NaN, Infinity, -Infinity] -> [NaN, Infinity, -Infinity]
            "raw\\ttab" -> 'raw\ttab'
            """)
    void readsLikeTheRunnersLenientReader(String text, String value) {
        String unescaped = text.replace("\\n", "\n").replace("\\t", "\t");
        assertThat(show(json(unescaped))).isEqualTo(value.replace("\\t", "\t"));
    }

    @Test
    void keysThatDifferOnlyInCaseKeepTheFirstKeyAndTheLastValue() {
        ObjectValue o = (ObjectValue) json("{\"Name\": 1, \"other\": 2, \"NAME\": 3}");
        assertThat(o.keys()).containsExactly("Name", "other");
        assertThat(o.get("name")).isEqualTo(Value.of(3));
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '`', textBlock = """
            `` -> expected a JSON value, found empty text
            `   ` -> expected a JSON value, found only blanks
            [1, -> not JSON at line 1, column 4:
            {"a" 1} -> not JSON at line 1, column 6: Unexpected character ('1'
            nope -> not JSON at line 1, column 1: Unrecognized token 'nope'
            "unclosed -> not JSON at line 1, column 10:
            """)
    void refusesWhatIsNotJson(String text, String problem) {
        ExpressionException e = catchThrowableOfType(ExpressionException.class, () -> Json.parse(text));
        assertThat(e).isNotNull();
        assertThat(e.problem()).startsWith(problem).doesNotContain("\n");
        assertThat(e.offset()).isEqualTo(-1);
    }

    @Test
    void readsSixtyFourLevelsAndNoMoreAsNewtonsoft() throws ExpressionException {
        Value v = Json.parse("[".repeat(64) + "]".repeat(64));
        int depth = 0;
        while (v instanceof Value.ArrayValue a && !a.items().isEmpty()) {
            v = a.items().get(0);
            depth++;
        }
        assertThat(depth).isEqualTo(63);
        ExpressionException e = catchThrowableOfType(ExpressionException.class,
                () -> Json.parse("[".repeat(65) + "]".repeat(65)));
        assertThat(e).isNotNull();
        assertThat(e.problem()).isEqualTo("the JSON nests deeper than 64 levels, as far as the runner reads");
    }

    @Test
    void aDeeplyNestedTextFailsFastWithoutRecursionDeeperThanTheLimit() {
        String bomb = "[".repeat(1_000_000);
        // 60 s catches a hang; what the test proves is the early, clear refusal
        ExpressionException e = assertTimeoutPreemptively(Duration.ofSeconds(60),
                () -> catchThrowableOfType(ExpressionException.class, () -> Json.parse(bomb)));
        assertThat(e).isNotNull();
        assertThat(e.problem()).isEqualTo("the JSON nests deeper than 64 levels, as far as the runner reads");
    }

    @Test
    void roundTripsWhatItWrites() {
        Value v = json("{\"a\": [1, 2.5, \"x\\ny\", null, true], \"b\": {\"c\": \"é\\u2028\"}}");
        assertThat(json(Json.write(v))).isEqualTo(v);
        assertThat(show(v)).isEqualTo("{a: [1, 2.5, 'x\ny', null, true], b: {c: 'é\u2028'}}");
        assertThat(List.of(Json.MAX_DEPTH)).containsExactly(64);
    }
}
