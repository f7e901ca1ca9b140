package dev.knotless.plan.expression;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.plan.expression.Value.ObjectValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conversions of GitHub's runner ({@code EvaluationResult}, {@code ExpressionUtility}), with
 * the cases of GitHub's cross-language test data (coerce_string, coerce_number, number) and the
 * .NET behaviour behind them.
 */
class ValueTest {

    static Stream<Arguments> truthiness() {
        return Stream.of(
                Arguments.of(Value.NULL, false),
                Arguments.of(Value.FALSE, false),
                Arguments.of(Value.TRUE, true),
                Arguments.of(Value.of(0), false),
                Arguments.of(Value.of(-0.0), false),
                Arguments.of(Value.of(Double.NaN), false),
                Arguments.of(Value.of(1), true),
                Arguments.of(Value.of(-1), true),
                Arguments.of(Value.of(0.5), true),
                Arguments.of(Value.of(Double.POSITIVE_INFINITY), true),
                Arguments.of(Value.of(Double.NEGATIVE_INFINITY), true),
                Arguments.of(Value.of(""), false),
                Arguments.of(Value.of(" "), true),
                Arguments.of(Value.of("0"), true),
                Arguments.of(Value.of("false"), true),
                Arguments.of(Value.array(), true),
                Arguments.of(Value.object(Map.of()), true));
    }

    @ParameterizedTest
    @MethodSource
    void truthiness(Value value, boolean truthy) {
        assertThat(value.isTruthy()).isEqualTo(truthy);
    }

    /** .NET's G15; the last row is a tie at the 16th digit, which .NET's Dragon4 rounds to even. */
    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", textBlock = """
            1 -> 1
            -2.0 -> -2
            0 -> 0
            -0.0 -> 0
            0.5 -> 0.5
            -0.5 -> -0.5
            0.1 -> 0.1
            1.005 -> 1.005
            123456.789 -> 123456.789
            1234.56 -> 1234.56
            1.9 -> 1.9
            120 -> 120
            0.012 -> 0.012
            0.84551240822557006 -> 0.84551240822557
            1234567890 -> 1234567890
            123456789012345 -> 123456789012345
            999999999999999 -> 999999999999999
            1234567890123456 -> 1.23456789012346E+15
            999999999999999.9 -> 1E+15
            1e15 -> 1E+15
            12345678901234567890 -> 1.23456789012346E+19
            1e308 -> 1E+308
            0.0001 -> 0.0001
            0.000123456789012345678 -> 0.000123456789012346
            0.00001 -> 1E-05
            -2.5e-7 -> -2.5E-07
            4.9e-324 -> 4.94065645841247E-324
            9007199254740993 -> 9.00719925474099E+15
            NaN -> NaN
            Infinity -> Infinity
            -Infinity -> -Infinity
            1234567890123445 -> 1.23456789012344E+15
            """)
    void numbersPrintAsTheRunnerPrintsThem(String number, String text) {
        assertThat(Value.of(Double.parseDouble(number)).asString()).isEqualTo(text);
    }

    @Test
    void otherKindsPrintAsTheRunnerPrintsThem() {
        assertThat(Value.NULL.asString()).isEmpty();
        assertThat(Value.TRUE.asString()).isEqualTo("true");
        assertThat(Value.FALSE.asString()).isEqualTo("false");
        assertThat(Value.of("it's").asString()).isEqualTo("it's");
        assertThat(Value.array(Value.of(1)).asString()).isEqualTo("Array");
        assertThat(Value.object(Map.of("a", Value.of(1))).asString()).isEqualTo("Object");
    }

    /** JavaScript's Number() as the runner has it: .NET's double grammar, then 0x and 0o (32 bits), after a .NET trim. */
    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", quoteCharacter = '"', textBlock = """
            "" -> 0
            "   " -> 0
            "0" -> 0
            "42" -> 42
            " 123456.789 " -> 123456.789
            " +123456.789 " -> 123456.789
            " -123456.789 " -> -123456.789
            "\\t\\n7\\r" -> 7
            "\\u00A08\\u2003" -> 8
            ".5" -> 0.5
            "5." -> 5
            "-.5" -> -0.5
            "+.5" -> 0.5
            "1e3" -> 1000
            "1E+3" -> 1000
            "5.e1" -> 50
            "007" -> 7
            " 0xff " -> 255
            "0xFF" -> 255
            "0x" -> NaN
            "0X10" -> NaN
            "-0x10" -> NaN
            "0xffffffff" -> -1
            "0x80000000" -> -2147483648
            "0x100000000" -> NaN
            "0o17" -> 15
            "0o8" -> NaN
            "0o37777777777" -> -1
            " Infinity " -> Infinity
            "infinity" -> Infinity
            "+INFINITY" -> Infinity
            "-Infinity" -> -Infinity
            "NaN" -> NaN
            "." -> NaN
            "-" -> NaN
            "1e" -> NaN
            "1_000" -> NaN
            "1,000" -> NaN
            "1d" -> NaN
            "0x1p3" -> NaN
            "abc" -> NaN
            "١" -> NaN
            "1e400" -> Infinity
            """)
    void stringsConvertToNumbersAsTheRunnerConvertsThem(String text, String number) {
        String unescaped = text.replace("\\t", "\t").replace("\\n", "\n").replace("\\r", "\r")
                .replace("\\u00A0", "\u00A0").replace("\\u2003", "\u2003");
        double d = Value.of(unescaped).asNumber();
        if (number.equals("NaN")) {
            assertThat(d).isNaN();
        } else {
            assertThat(d).isEqualTo(Double.parseDouble(number));
        }
    }

    @Test
    void otherKindsConvertToNumbers() {
        assertThat(Value.NULL.asNumber()).isEqualTo(0.0);
        assertThat(Value.TRUE.asNumber()).isEqualTo(1.0);
        assertThat(Value.FALSE.asNumber()).isEqualTo(0.0);
        assertThat(Value.of(-3.5).asNumber()).isEqualTo(-3.5);
        assertThat(Value.array().asNumber()).isNaN();
        assertThat(Value.object(Map.of()).asNumber()).isNaN();
    }

    @Test
    void kindsAreNamedAsTheRunnerNamesThem() {
        assertThat(List.of(Value.NULL, Value.TRUE, Value.of(1), Value.of("s"), Value.array(), Value.object(Map.of()))
                .stream().map(Value::kind).toList())
                .containsExactly("Null", "Boolean", "Number", "String", "Array", "Object");
        assertThat(Value.of("x").isPrimitive()).isTrue();
        assertThat(Value.NULL.isPrimitive()).isTrue();
        assertThat(Value.array().isPrimitive()).isFalse();
        assertThat(Value.object(Map.of()).isPrimitive()).isFalse();
    }

    @Test
    void anObjectLooksKeysUpInAnyCaseAndKeepsTheirFirstSpellingAndPlace() {
        ObjectValue o = ObjectValue.builder()
                .put("Build-Id", Value.of(1))
                .put("name", Value.of("first"))
                .put("BUILD-ID", Value.of(2))
                .build();
        assertThat(o.size()).isEqualTo(2);
        assertThat(o.keys()).containsExactly("Build-Id", "name");
        assertThat(o.get("build-id")).isEqualTo(Value.of(2));
        assertThat(o.get("NAME")).isEqualTo(Value.of("first"));
        assertThat(o.get("missing")).isNull();
        assertThat(o.asMap()).containsExactly(Map.entry("Build-Id", Value.of(2)), Map.entry("name", Value.of("first")));
        assertThat(o.asMap().get("build-id")).as("asMap is an ordinary map").isNull();
    }

    @Test
    void objectKeysFoldLikeDotNetsOrdinalIgnoreCase() {
        ObjectValue o = ObjectValue.builder().put("straße", Value.of(1)).put("ı", Value.of(2)).put("ς", Value.of(3)).build();
        assertThat(o.get("STRASSE")).as("no full case folding").isNull();
        assertThat(o.get("STRAßE")).isEqualTo(Value.of(1));
        assertThat(o.get("I")).as("dotless i is not I").isNull();
        assertThat(o.get("i")).isNull();
        assertThat(o.get("Σ")).as("final sigma upper-cases to sigma").isEqualTo(Value.of(3));
        assertThat(o.get("σ")).isEqualTo(Value.of(3));
    }

    @Test
    void anObjectFromAMapKeepsItsOrder() {
        Map<String, Value> m = new LinkedHashMap<>();
        m.put("z", Value.of(1));
        m.put("a", Value.of(2));
        m.put("Z", Value.of(3));
        ObjectValue o = Value.object(m);
        assertThat(o.keys()).containsExactly("z", "a");
        assertThat(o.values()).containsExactly(Value.of(3), Value.of(2));
    }

    @Test
    void javaEqualityComparesContents() {
        assertThat(Value.array(Value.of(1), Value.of("a"))).isEqualTo(Value.array(List.of(Value.of(1), Value.of("a"))));
        assertThat(Value.object(Map.of("a", Value.NULL))).isEqualTo(Value.object(Map.of("a", Value.NULL)))
                .hasSameHashCodeAs(Value.object(Map.of("a", Value.NULL)));
        assertThat(Value.object(Map.of("a", Value.NULL))).isNotEqualTo(Value.object(Map.of("A", Value.NULL)));
        assertThat(Value.of(true)).isSameAs(Value.TRUE);
    }
}
