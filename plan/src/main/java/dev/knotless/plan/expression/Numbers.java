package dev.knotless.plan.expression;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Numbers as the runner reads and writes them ({@code ExpressionUtility.ParseNumber} and the
 * {@code G15} format of .NET), which is neither Java's {@code Double.parseDouble} (that takes
 * {@code 1d}, {@code 0x1p3}, surrounding control characters) nor its {@code toString} ({@code 1.0},
 * {@code 1.0E20}).
 */
final class Numbers {

    /** .NET's {@code Double.TryParse} with a sign, a decimal point and an exponent, nothing else. */
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");
    private static final MathContext FIFTEEN_DIGITS = new MathContext(15, RoundingMode.HALF_EVEN);

    private Numbers() {
    }

    /**
     * A literal in an expression, or a string compared with a number: trimmed; '' is 0; a decimal
     * with an optional exponent; {@code 0x} and {@code 0o} (lower case) with hex or octal digits
     * read as a 32-bit integer, so {@code 0xffffffff} is -1 and wider ones are NaN; {@code
     * Infinity}, {@code -Infinity}, {@code NaN} in any case; anything else NaN.
     */
    static double parse(String text) {
        String s = Chars.trim(text);
        if (s.isEmpty()) {
            return 0;
        }
        if (DECIMAL.matcher(s).matches()) {
            return Double.parseDouble(s);
        }
        if (s.length() > 2 && s.charAt(0) == '0' && (s.charAt(1) == 'x' || s.charAt(1) == 'o')) {
            int radix = s.charAt(1) == 'x' ? 16 : 8;
            for (int i = 2; i < s.length(); i++) {
                if (Character.digit(s.charAt(i), radix) < 0 || s.charAt(i) > 'f') {
                    return Double.NaN;
                }
            }
            try {
                // Int32.TryParse(hex) and Convert.ToInt32(s, 8) take all 32 bits, sign bit included.
                return Integer.parseUnsignedInt(s, 2, s.length(), radix);
            } catch (NumberFormatException wider) {
                return Double.NaN;
            }
        }
        // .NET's parser, after the number grammar fails, takes its infinity and NaN symbols in any case.
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "infinity", "+infinity" -> Double.POSITIVE_INFINITY;
            case "-infinity" -> Double.NEGATIVE_INFINITY;
            default -> Double.NaN;
        };
    }

    /**
     * .NET's {@code ToString("G15")}: the exact value rounded to 15 significant digits (ties to
     * even, as .NET's Dragon4), trailing zeros dropped, scientific with a signed two-digit
     * exponent when the exponent is below -4 or above 14. Zero of either sign is {@code 0}: the
     * runner prints -0 so to keep what it printed before .NET Core 3.
     */
    static String format(double d) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "Infinity" : "-Infinity";
        }
        if (d == 0) {
            return "0";
        }
        BigDecimal rounded = new BigDecimal(d).round(FIFTEEN_DIGITS).stripTrailingZeros();
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent >= -4 && exponent < 15) {
            return rounded.toPlainString();
        }
        String digits = rounded.unscaledValue().abs().toString();
        StringBuilder b = new StringBuilder();
        if (rounded.signum() < 0) {
            b.append('-');
        }
        b.append(digits.charAt(0));
        if (digits.length() > 1) {
            b.append('.').append(digits, 1, digits.length());
        }
        b.append('E').append(exponent < 0 ? '-' : '+');
        int magnitude = Math.abs(exponent);
        if (magnitude < 10) {
            b.append('0');
        }
        return b.append(magnitude).toString();
    }
}
