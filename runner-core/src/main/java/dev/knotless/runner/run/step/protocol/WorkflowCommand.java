package dev.knotless.runner.run.step.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * One workflow command read from a line of a step's output, as GitHub's runner reads it
 * ({@code ActionCommand.TryParseV2}, then {@code TryParse}, in actions/runner's
 * {@code src/Runner.Common/ActionCommand.cs}):
 *
 * <ul>
 *   <li>{@code ::name key=value,key=value::data}, after any leading whitespace: the name runs to
 *       the first space or {@code ::}; properties are split at {@code ,} and each at its first
 *       {@code =} (one without a key or a value is dropped); in a property {@code %0D %0A %3A %2C
 *       %25} stand for CR, LF, {@code :}, {@code ,} and {@code %}, in the data {@code %0D %0A %25};
 *   <li>else the older {@code ##[name key=value;key=value]data}, at the first {@code ##[} anywhere
 *       in the line, properties split at {@code ;}, and {@code %3B %0D %0A %5D %25} standing for
 *       {@code ;}, CR, LF, {@code ]} and {@code %} in both.
 * </ul>
 *
 * Only a registered name makes a command (names and property keys ignore case); any other line
 * is output, nothing more.
 *
 * @param name as written
 * @param properties by key, ignoring case; a later key wins
 * @param data what follows the command, unescaped
 * @param written the data as the line has it, escaped
 * @param legacy whether it was written in the older {@code ##[name]data} form
 */
public record WorkflowCommand(String name, Map<String, String> properties, String data, String written, boolean legacy) {

    public WorkflowCommand {
        TreeMap<String, String> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        copy.putAll(properties);
        properties = Collections.unmodifiableMap(copy);
    }

    /** Whether this is command {@code other}, ignoring case as GitHub's runner does. */
    public boolean is(String other) {
        return name.equalsIgnoreCase(other);
    }

    /** The command {@code line} holds, if {@code registered} knows its name. */
    public static Optional<WorkflowCommand> parse(String line, Predicate<String> registered) {
        Optional<WorkflowCommand> v2 = current(line, registered);
        return v2.isPresent() ? v2 : legacy(line, registered);
    }

    private static Optional<WorkflowCommand> current(String line, Predicate<String> registered) {
        String message = line.stripLeading();
        if (!message.startsWith("::")) {
            return Optional.empty();
        }
        int end = message.indexOf("::", 2);
        if (end < 0) {
            return Optional.empty();
        }
        String info = message.substring(2, end);
        int space = info.indexOf(' ');
        String name = space < 0 ? info : info.substring(0, space);
        if (name.isEmpty() || !registered.test(name)) {
            return Optional.empty();
        }
        Map<String, String> properties = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        if (space > 0) {
            for (String property : info.substring(space + 1).strip().split(",")) {
                put(properties, property, true);
            }
        }
        String written = message.substring(end + 2);
        return Optional.of(new WorkflowCommand(name, properties, unescapeData(written), written, false));
    }

    private static Optional<WorkflowCommand> legacy(String line, Predicate<String> registered) {
        int prefix = line.indexOf("##[");
        if (prefix < 0) {
            return Optional.empty();
        }
        int bracket = line.indexOf(']', prefix);
        if (bracket < 0) {
            return Optional.empty();
        }
        String info = line.substring(prefix + 3, bracket);
        int space = info.indexOf(' ');
        String name = space < 0 ? info : info.substring(0, space);
        if (name.isEmpty() || !registered.test(name)) {
            return Optional.empty();
        }
        Map<String, String> properties = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        if (space > 0) {
            for (String property : info.substring(space + 1).split(";")) {
                put(properties, property, false);
            }
        }
        String written = line.substring(bracket + 1);
        return Optional.of(new WorkflowCommand(name, properties, unescapeLegacy(written), written, true));
    }

    /**
     * Where the data of a command in {@code legacy} form or not begins in the line's bytes, or -1:
     * found in the bytes themselves, since the line's text is decoded and a byte the decoder
     * replaced would move a position taken from it. The syntax is ASCII, which UTF-8 never has
     * inside another character, and a line read as a command begins with ASCII whitespace and
     * {@code ::}, or holds {@code ##[} ({@link CommandLines}).
     */
    static int dataStart(byte[] bytes, int length, boolean legacy) {
        if (legacy) {
            int prefix = indexOf(bytes, length, "##[", 0);
            int bracket = prefix < 0 ? -1 : indexOf(bytes, length, "]", prefix);
            return bracket < 0 ? -1 : bracket + 1;
        }
        int i = 0;
        while (i < length && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == 0x0b || bytes[i] == '\f')) {
            i++;
        }
        if (indexOf(bytes, length, "::", i) != i) {
            return -1;
        }
        int end = indexOf(bytes, length, "::", i + 2);
        return end < 0 ? -1 : end + 2;
    }

    /**
     * Where the name of the command a line begins, in either form, ends in its bytes when that name
     * is {@code name}; else -1. For a line too long to be read whole, whose name is all there is to go by.
     */
    static int nameEnd(byte[] bytes, int length, String name) {
        int i = 0;
        while (i < length && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == 0x0b || bytes[i] == '\f')) {
            i++;
        }
        int from;
        if (indexOf(bytes, length, "::", i) == i) {
            from = i + 2;
        } else {
            int prefix = indexOf(bytes, length, "##[", 0);
            if (prefix < 0) {
                return -1;
            }
            from = prefix + 3;
        }
        int end = from + name.length();
        if (end > length || !new String(bytes, from, name.length(), StandardCharsets.ISO_8859_1).equalsIgnoreCase(name)) {
            return -1;
        }
        return end == length || bytes[end] == ' ' || bytes[end] == ':' || bytes[end] == ']' ? end : -1;
    }

    private static int indexOf(byte[] bytes, int length, String ascii, int from) {
        outer:
        for (int i = Math.max(0, from); i + ascii.length() <= length; i++) {
            for (int j = 0; j < ascii.length(); j++) {
                if (bytes[i + j] != ascii.charAt(j)) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static void put(Map<String, String> properties, String property, boolean current) {
        int equals = property.indexOf('=');
        if (equals > 0 && equals < property.length() - 1) {
            String value = property.substring(equals + 1);
            properties.put(property.substring(0, equals), current ? unescapeProperty(value) : unescapeLegacy(value));
        }
    }

    /** In the order GitHub's runner replaces them: {@code %25} last, so an escaped escape stays escaped. */
    static String unescapeData(String text) {
        return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%");
    }

    static String unescapeProperty(String text) {
        return text.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%");
    }

    static String unescapeLegacy(String text) {
        return text.replace("%3B", ";").replace("%0D", "\r").replace("%0A", "\n").replace("%5D", "]").replace("%25", "%");
    }
}
