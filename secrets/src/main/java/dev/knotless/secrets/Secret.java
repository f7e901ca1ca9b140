package dev.knotless.secrets;

import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A named secret value. {@link #toString()} names it and never prints the value.
 *
 * <p>Invariants, checked on construction so that a secret can always reach a step as an
 * environment variable: the name is a shell identifier ({@code [A-Za-z_][A-Za-z0-9_]*}); the
 * value is valid Unicode without NUL, and {@code NAME=value} fits in one Linux environment string
 * ({@link #MAX_ENVIRONMENT_STRING} bytes, terminator included).
 */
public record Secret(String name, String value) {

    /**
     * Linux's limit on one environment string, {@code NAME=value} plus its terminating NUL
     * (MAX_ARG_STRLEN, 32 pages of 4 KiB). A longer variable makes {@code execve} fail with E2BIG.
     */
    public static final int MAX_ENVIRONMENT_STRING = 131_072;

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    public Secret {
        checkName(name);
        Objects.requireNonNull(value, "value");
        checkValue(name, value);
    }

    /** Throws {@link IllegalArgumentException} unless {@code name} is a shell identifier. */
    public static void checkName(String name) {
        Objects.requireNonNull(name, "name");
        if (!isValidName(name)) {
            throw new IllegalArgumentException("secret name '" + printable(name)
                    + "' is not a shell identifier (letters, digits and _, not starting with a digit)");
        }
    }

    /** True when {@code name} is a shell identifier: {@code [A-Za-z_][A-Za-z0-9_]*}. */
    public static boolean isValidName(String name) {
        return NAME.matcher(name).matches();
    }

    /**
     * Throws {@link IllegalArgumentException} with a one-line message naming the variable, never
     * showing the value, unless {@code value} can be exported as {@code name}: no NUL, valid
     * Unicode, and {@code name=value} within {@link #MAX_ENVIRONMENT_STRING}.
     */
    static void checkValue(String name, String value) {
        if (value.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(
                    "value of " + name + " contains a NUL byte, which an environment variable cannot hold");
        }
        int bytes;
        try {
            bytes = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(value))
                    .remaining();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(
                    "value of " + name + " is not valid Unicode text (it holds an unpaired surrogate)");
        }
        long total = (long) name.length() + 1 + bytes + 1;
        if (total > MAX_ENVIRONMENT_STRING) {
            throw new IllegalArgumentException("value of " + name + " is " + bytes
                    + " bytes; Linux limits one environment variable to " + MAX_ENVIRONMENT_STRING
                    + " bytes including its name");
        }
    }

    private static String printable(String name) {
        String shown = name.length() > 64 ? name.substring(0, 61) + "..." : name;
        return shown.replaceAll("\\p{Cntrl}", "?");
    }

    @Override
    public String toString() {
        return "Secret[name=" + name + ", value=***]";
    }
}
