package dev.knotless.plan.expression;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import dev.knotless.plan.expression.Value.ArrayValue;
import dev.knotless.plan.expression.Value.BooleanValue;
import dev.knotless.plan.expression.Value.NullValue;
import dev.knotless.plan.expression.Value.NumberValue;
import dev.knotless.plan.expression.Value.ObjectValue;
import dev.knotless.plan.expression.Value.StringValue;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * JSON as {@code fromJSON} reads it and {@code toJSON} writes it, also for a host that builds
 * contexts from JSON (an event's payload).
 */
public final class Json {

    /** Newtonsoft.Json's default reader depth, under the runner's {@code fromJSON}. */
    public static final int MAX_DEPTH = 64;

    /**
     * The runner reads with Newtonsoft's lenient reader: comments, single quotes, unquoted names,
     * {@code NaN} and {@code Infinity}, trailing commas, raw control characters in strings, and
     * whatever follows the first value is not read. (Its strict reader is a feature flag, off.)
     */
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
            .enable(JsonReadFeature.ALLOW_SINGLE_QUOTES)
            .enable(JsonReadFeature.ALLOW_UNQUOTED_FIELD_NAMES)
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(JsonReadFeature.ALLOW_TRAILING_COMMA)
            .enable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
            .enable(JsonReadFeature.ALLOW_BACKSLASH_ESCAPING_ANY_CHARACTER)
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
            .build();

    private Json() {
    }

    /**
     * The first JSON value of {@code text}. Numbers become doubles; an object's keys that differ only
     * in case keep the first key and the last value, as the runner's case-insensitive dictionary.
     *
     * @throws ExpressionException without an offset when {@code text} does not start with a JSON
     *     value or nests deeper than {@value #MAX_DEPTH}
     */
    public static Value parse(String text) throws ExpressionException {
        try (JsonParser parser = FACTORY.createParser(text)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw new ExpressionException("expected a JSON value, found " + (text.isEmpty() ? "empty text" : "only blanks"),
                        -1);
            }
            return read(parser, first);
        } catch (StreamConstraintsException e) {
            String message = String.valueOf(e.getOriginalMessage());
            throw new ExpressionException(message.startsWith("Document nesting depth")
                    ? "the JSON nests deeper than " + MAX_DEPTH + " levels, as far as the runner reads"
                    : "not JSON the runner reads: " + oneLine(message), -1);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new ExpressionException("not JSON" + where + ": " + oneLine(e.getOriginalMessage()), -1);
        } catch (IOException e) {
            throw new ExpressionException("not JSON: " + oneLine(String.valueOf(e.getMessage())), -1);
        }
    }

    /** Recursion bounded by the parser's nesting limit. */
    private static Value read(JsonParser parser, JsonToken token) throws IOException, ExpressionException {
        switch (token) {
            case START_OBJECT -> {
                ObjectValue.Builder object = ObjectValue.builder();
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
                    String name = parser.currentName();
                    object.put(name, read(parser, parser.nextToken()));
                }
                return object.build();
            }
            case START_ARRAY -> {
                List<Value> items = new ArrayList<>();
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
                    items.add(read(parser, t));
                }
                return Value.array(items);
            }
            case VALUE_STRING -> {
                return Value.of(parser.getText());
            }
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                return Value.of(parser.getDoubleValue());
            }
            case VALUE_TRUE -> {
                return Value.TRUE;
            }
            case VALUE_FALSE -> {
                return Value.FALSE;
            }
            case VALUE_NULL -> {
                return Value.NULL;
            }
            default -> throw new ExpressionException("not JSON: unexpected " + token, -1);
        }
    }

    /**
     * The runner's {@code toJSON}: two spaces a level, {@code "key": value}, {@code []} and {@code
     * {}} when empty; numbers as {@link Value#asString()} prints them (so {@code NaN} and {@code
     * 1E+20} too); strings escaped as Newtonsoft.Json does.
     */
    public static String write(Value value) {
        String json = write(value, Long.MAX_VALUE);
        if (json == null) {
            throw new IllegalStateException("unbounded output exceeded");
        }
        return json;
    }

    /** Null as soon as the text would pass {@code maxLength} characters. Iterative: any depth. */
    static @Nullable String write(Value value, long maxLength) {
        StringBuilder out = new StringBuilder();
        Deque<Level> levels = new ArrayDeque<>();
        open(value, out, levels);
        while (!levels.isEmpty()) {
            if (out.length() > maxLength) {
                return null;
            }
            Level level = levels.peek();
            if (level.items.hasNext()) {
                out.append(level.first ? "" : ",").append('\n');
                indent(out, levels.size());
                level.first = false;
                Object next = level.items.next();
                if (next instanceof Entry entry) {
                    string(entry.key, out);
                    out.append(": ");
                    open(entry.value, out, levels);
                } else {
                    open((Value) next, out, levels);
                }
            } else {
                levels.pop();
                out.append('\n');
                indent(out, levels.size());
                out.append(level.object ? '}' : ']');
            }
        }
        return out.length() > maxLength ? null : out.toString();
    }

    private record Entry(String key, Value value) {
    }

    private static final class Level {
        final Iterator<?> items;
        final boolean object;
        boolean first = true;

        Level(Iterator<?> items, boolean object) {
            this.items = items;
            this.object = object;
        }
    }

    /** Writes a scalar or an empty collection whole; opens a collection with items as a level. */
    private static void open(Value value, StringBuilder out, Deque<Level> levels) {
        switch (value) {
            case NullValue n -> out.append("null");
            case BooleanValue b -> out.append(b.value());
            case NumberValue n -> out.append(n.asString());
            case StringValue s -> string(s.value(), out);
            case ArrayValue a -> {
                if (a.items().isEmpty()) {
                    out.append("[]");
                } else {
                    out.append('[');
                    levels.push(new Level(a.items().iterator(), false));
                }
            }
            case ObjectValue o -> {
                if (o.size() == 0) {
                    out.append("{}");
                } else {
                    out.append('{');
                    List<Entry> entries = new ArrayList<>(o.size());
                    for (int i = 0; i < o.size(); i++) {
                        entries.add(new Entry(o.keys().get(i), o.values().get(i)));
                    }
                    levels.push(new Level(entries.iterator(), true));
                }
            }
        }
    }

    private static void indent(StringBuilder out, int level) {
        out.append(" ".repeat(level * 2));
    }

    /**
     * Newtonsoft's {@code JsonConvert.ToString(string)}: quotes, backslash and control characters
     * escaped ({@code \n} and its kin short, the rest as four lower-case hex digits), and the three
     * line separators U+0085, U+2028, U+2029; everything else, non-ASCII included, as it is.
     */
    private static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\f' -> out.append("\\f");
                case '\b' -> out.append("\\b");
                default -> {
                    if (c < ' ' || c == '\u0085' || c == '\u2028' || c == '\u2029') {
                        out.append(String.format("\\%s%04x", "u", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static String oneLine(@Nullable String s) {
        return s == null ? "" : s.replaceAll("[\\r\\n]+", " ");
    }
}
