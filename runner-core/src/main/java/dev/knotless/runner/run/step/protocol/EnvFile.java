package dev.knotless.runner.run.step.protocol;

import dev.knotless.tar.Printable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A {@code NAME=value} file (outputs, environment, state) as GitHub's runner reads it
 * ({@code EnvFileKeyValuePairs} in actions/runner's {@code src/Runner.Worker/FileCommandManager.cs}):
 * lines end at {@code \n} only (a {@code \r} stays in the line, as on Linux there); an empty line
 * is skipped; a line is {@code NAME=value} when its first {@code =} comes before any {@code <<},
 * else {@code NAME<<DELIMITER}, whose value is the lines after it up to a line that is exactly the
 * delimiter, without the newline before it. Everything else is a problem, with GitHub's message.
 *
 * <p>Two bounds and one difference: at most {@link #MOST_PAIRS} pairs; a problem after some pairs
 * keeps those before it, as GitHub's runner has set them by then; and an empty name is refused
 * (GitHub's check for it tests the line instead of the name, so an {@code =value} line slips by
 * there as a nameless pair).
 *
 * @param pairs the names and values, in the file's order
 * @param problem what was wrong at the first pair that could not be read; null when none was
 */
public record EnvFile(List<Map.Entry<String, String>> pairs, @Nullable String problem) {

    /** Pairs one file may set. */
    public static final int MOST_PAIRS = 1_000;

    public EnvFile {
        pairs = List.copyOf(pairs);
    }

    /** {@code text} read as GitHub's runner reads it. */
    public static EnvFile parse(String text) {
        List<Map.Entry<String, String>> pairs = new ArrayList<>();
        Lines lines = new Lines(text);
        for (String line = lines.next(); line != null; line = lines.next()) {
            if (line.isEmpty()) {
                continue;
            }
            if (pairs.size() == MOST_PAIRS) {
                return new EnvFile(pairs, "Invalid format: more than " + MOST_PAIRS + " names in one file");
            }
            int equals = line.indexOf('=');
            int heredoc = line.indexOf("<<");
            if (equals >= 0 && (heredoc < 0 || equals < heredoc)) {
                if (equals == 0) {
                    return new EnvFile(pairs, "Invalid format '" + shown(line) + "'. Name must not be empty");
                }
                pairs.add(Map.entry(line.substring(0, equals), line.substring(equals + 1)));
            } else if (heredoc >= 0) {
                String name = line.substring(0, heredoc);
                String delimiter = line.substring(heredoc + 2);
                if (name.isEmpty() || delimiter.isEmpty()) {
                    return new EnvFile(pairs, "Invalid format '" + shown(line)
                            + "'. Name must not be empty and delimiter must not be empty");
                }
                int start = lines.position();
                int end = start;
                String body = lines.next();
                while (!delimiter.equals(body)) {
                    if (body == null) {
                        return new EnvFile(pairs, "Invalid value. Matching delimiter not found '" + shown(delimiter) + "'");
                    }
                    if (!lines.endedWithNewline()) {
                        return new EnvFile(pairs, "Invalid value. EOF marker missing new line.");
                    }
                    end = lines.position() - 1;
                    body = lines.next();
                }
                pairs.add(Map.entry(name, text.substring(start, end)));
            } else {
                return new EnvFile(pairs, "Invalid format '" + shown(line) + "'");
            }
        }
        return new EnvFile(pairs, null);
    }

    /** A line of the file as a message may quote it: on one line, and short. */
    private static String shown(String text) {
        return Printable.name(text);
    }

    /** The file's lines, each without its {@code \n}, and where the next begins. */
    private static final class Lines {
        private final String text;
        private int index;
        private boolean newline;

        Lines(String text) {
            this.text = text;
        }

        @Nullable String next() {
            if (index >= text.length()) {
                newline = false;
                return null;
            }
            int from = index;
            int lf = text.indexOf('\n', from);
            if (lf < 0) {
                index = text.length();
                newline = false;
                return text.substring(from);
            }
            index = lf + 1;
            newline = true;
            return text.substring(from, lf);
        }

        int position() {
            return index;
        }

        boolean endedWithNewline() {
            return newline;
        }
    }
}
