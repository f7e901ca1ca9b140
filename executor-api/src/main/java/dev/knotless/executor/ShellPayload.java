package dev.knotless.executor;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The shell text that carries a step's environment to it on stdin, for executors that start a
 * shell and send the step through its standard input (so values never appear in argv, a spec or
 * a file).
 *
 * <h2>Payload</h2>
 *
 * {@link #build} returns, for environment {@code {A=it's, B=x}} and command {@code [/bin/sh, -e,
 * /steps/1]}:
 *
 * <pre>{@code
 * {
 * export A='it'\''s'
 * export B='x'
 * exec /bin/sh -e /steps/1
 * }
 * }</pre>
 *
 * Values are always single-quoted (a {@code '} becomes {@code '\''}), so the shell expands
 * nothing: {@code $(…)}, backticks, backslashes, {@code %} and newlines arrive as stored. Command
 * words are quoted the same way unless they consist only of {@code [A-Za-z0-9_@%+=:,./-]}. The
 * brace group makes the shell parse the whole payload before running any of it: if the stream is
 * cut short, the shell reports a syntax error and runs nothing, rather than running the exports
 * and exiting 0, or running a truncated command.
 *
 * <h2>Framing</h2>
 *
 * Some transports cannot close a process's stdin (an attach or exec stream that only closes with
 * the process). For them {@link #framed} prefixes the payload with its length so the receiver
 * knows where it ends:
 *
 * <pre>{@code
 * <decimal byte length of the payload, ASCII, no sign or leading spaces> LF
 * <exactly that many bytes: the UTF-8 payload of build()>
 * }</pre>
 *
 * The receiver is {@link #receiver()}: {@code /bin/sh -c} with {@link #RECEIVER_SCRIPT}, which
 * reads the length line with the {@code read} builtin (one byte at a time, so it never consumes
 * payload bytes), reads exactly that many bytes with {@code head -c} into a shell variable,
 * checks that the payload ends with its closing brace line, points stdin at {@code /dev/null} (so
 * a step that reads stdin sees end of file instead of hanging on the open stream), and {@code
 * eval}s it. The values pass only through the shell's memory and the exec'd environment. A
 * missing or malformed length line, or a short payload, ends the receiver with {@link
 * #TRUNCATED_EXIT} and one line on stderr; nothing of the step runs. Needs {@code head -c}
 * (GNU coreutils, BusyBox and toybox all have it).
 *
 * <h2>Limits</h2>
 *
 * Names must be shell identifiers and values must hold no NUL (a C string cannot). Each {@code
 * NAME=value} must fit in {@link Environment#MAX_ENTRY} bytes, Linux's limit on one
 * environment string; all variables and arguments together must fit in the kernel's ARG_MAX
 * (a quarter of the stack limit, 2 MiB by default), which this class does not check.
 *
 * <p>Concurrency: stateless; every method is thread-safe.
 */
public final class ShellPayload {

    /** The receiver's exit status when the frame is malformed or cut short. */
    public static final int TRUNCATED_EXIT = 125;

    /** The script {@link #receiver()} runs; see the class comment. Holds no secret. */
    public static final String RECEIVER_SCRIPT = String.join("\n",
            "IFS= read -r n || { echo 'step payload: no length line' >&2; exit " + TRUNCATED_EXIT + "; }",
            "case $n in ''|*[!0-9]*) echo 'step payload: bad length line' >&2; exit " + TRUNCATED_EXIT + ";; esac",
            "p=$(head -c \"$n\"; echo .)",
            "p=${p%.}",
            "case $p in *'",
            "}",
            "') ;; *) echo \"step payload: truncated (expected $n bytes)\" >&2; exit " + TRUNCATED_EXIT + ";; esac",
            "exec </dev/null",
            "eval \"$p\"");

    private static final Pattern SAFE_WORD = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private ShellPayload() {}

    /**
     * The payload for {@code environment} and {@code command}; see the class comment.
     *
     * @throws IllegalArgumentException when a name is not a shell identifier, a value holds NUL,
     *     a variable is too long for Linux, or the command is empty; the message names the
     *     variable and never shows its value
     */
    public static String build(Map<String, String> environment, List<String> command) {
        Objects.requireNonNull(environment, "environment");
        Objects.requireNonNull(command, "command");
        if (command.isEmpty()) {
            throw new IllegalArgumentException("a step needs a command");
        }
        int size = 16;
        Environment.problem(environment).ifPresent(problem -> {
            throw new IllegalArgumentException(problem);
        });
        for (Map.Entry<String, String> e : environment.entrySet()) {
            size += e.getKey().length() + e.getValue().length() + 12;
        }
        StringBuilder out = new StringBuilder(size).append("{\n");
        for (Map.Entry<String, String> e : environment.entrySet()) {
            out.append("export ").append(e.getKey()).append('=');
            appendQuoted(out, e.getValue());
            out.append('\n');
        }
        out.append("exec");
        for (String word : command) {
            if (word.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("a command word contains a NUL byte");
            }
            out.append(' ').append(quote(word));
        }
        return out.append("\n}\n").toString();
    }

    /** {@link #build} for a step. */
    public static String build(StepPayload step) {
        return build(step.environment(), step.command());
    }

    /**
     * The payload of {@link #build} preceded by its length line, for {@link #receiver()}; see the
     * class comment for the exact format.
     */
    public static byte[] framed(Map<String, String> environment, List<String> command) {
        byte[] payload = build(environment, command).getBytes(StandardCharsets.UTF_8);
        byte[] header = (payload.length + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] frame = new byte[header.length + payload.length];
        System.arraycopy(header, 0, frame, 0, header.length);
        System.arraycopy(payload, 0, frame, header.length, payload.length);
        return frame;
    }

    /** {@link #framed(Map, List)} for a step. */
    public static byte[] framed(StepPayload step) {
        return framed(step.environment(), step.command());
    }

    /** The command that reads a {@link #framed} payload on stdin and runs it: {@code /bin/sh -c …}. */
    public static List<String> receiver() {
        return receiver(List.of("/bin/sh"));
    }

    /** The receiver run by another shell, such as {@code [/bin/busybox, sh]}. */
    public static List<String> receiver(List<String> shell) {
        List<String> argv = new ArrayList<>(shell);
        argv.add("-c");
        argv.add(RECEIVER_SCRIPT);
        return List.copyOf(argv);
    }

    /** {@code word} as one shell word: unchanged when only safe characters, else single-quoted. */
    public static String quote(String word) {
        if (SAFE_WORD.matcher(word).matches()) {
            return word;
        }
        StringBuilder out = new StringBuilder(word.length() + 8);
        appendQuoted(out, word);
        return out.toString();
    }

    private static void appendQuoted(StringBuilder out, String value) {
        out.append('\'');
        int from = 0;
        for (int quote = value.indexOf('\''); quote >= 0; quote = value.indexOf('\'', from)) {
            out.append(value, from, quote).append("'\\''");
            from = quote + 1;
        }
        out.append(value, from, value.length()).append('\'');
    }
}
