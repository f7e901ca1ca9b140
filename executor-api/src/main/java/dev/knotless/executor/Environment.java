package dev.knotless.executor;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What a step's environment must satisfy to reach a process on Linux, whatever carries it (an
 * exec's {@code Env}, a shell payload's exports). Messages name variables, never values.
 */
public final class Environment {

    /**
     * Linux's limit on one environment string, {@code NAME=value} plus its NUL (MAX_ARG_STRLEN,
     * 32 pages of 4 KiB). A longer one makes {@code execve} fail with E2BIG.
     */
    public static final int MAX_ENTRY = 131_072;
    /** About what Linux allows for a process's arguments and environment together (ARG_MAX). */
    public static final int MAX_TOTAL = 2 * 1024 * 1024;

    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private Environment() {}

    /** True when {@code name} is a shell identifier: {@code [A-Za-z_][A-Za-z0-9_]*}. */
    public static boolean isName(String name) {
        return NAME.matcher(name).matches();
    }

    /** The one-line reason the variables cannot reach a process, or empty when they can. */
    public static Optional<String> problem(Map<String, String> environment) {
        long total = 0;
        for (Map.Entry<String, String> e : environment.entrySet()) {
            String key = e.getKey();
            if (!isName(key)) {
                return Optional.of("variable name '" + key.replaceAll("\\p{Cntrl}", "?") + "' is not a shell identifier");
            }
            String value = e.getValue();
            if (value.indexOf('\0') >= 0) {
                return Optional.of("variable " + key + " contains a NUL byte, which no environment can carry");
            }
            long size = key.length() + 2L + value.getBytes(StandardCharsets.UTF_8).length;
            if (size > MAX_ENTRY) {
                return Optional.of("variable " + key + " is " + size + " bytes; Linux allows at most " + MAX_ENTRY
                        + " bytes for one environment variable including its name (pass large data as a file)");
            }
            total += size + Long.BYTES;
        }
        if (total > MAX_TOTAL) {
            return Optional.of("the step's " + environment.size() + " variables add up to " + total
                    + " bytes; Linux allows about " + MAX_TOTAL
                    + " for a process's arguments and environment together (pass large data as files)");
        }
        return Optional.empty();
    }
}
