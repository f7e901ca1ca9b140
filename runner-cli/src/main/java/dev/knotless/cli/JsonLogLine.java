package dev.knotless.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * One log line as one JSON object (docs/guide/daemon.md): {@code time}, {@code level},
 * {@code logger}, {@code message}, then the MDC ({@code run}, {@code repo} where known), then
 * {@code error} when there is one. The daemon's own lines and Logback's use the same shape.
 */
final class JsonLogLine {

    private static final JsonFactory JSON = new JsonFactory();

    private JsonLogLine() {}

    static String format(Instant time, String level, String logger, String message, Map<String, String> mdc, String error) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("time", time.toString());
            g.writeStringField("level", level);
            g.writeStringField("logger", logger);
            g.writeStringField("message", message);
            if (mdc != null) {
                for (Map.Entry<String, String> e : new TreeMap<>(mdc).entrySet()) {
                    if (!Map.of("time", 0, "level", 0, "logger", 0, "message", 0, "error", 0).containsKey(e.getKey())) {
                        g.writeStringField(e.getKey(), e.getValue());
                    }
                }
            }
            if (error != null) {
                g.writeStringField("error", error);
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }
}
