package dev.knotless.node.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.jspecify.annotations.Nullable;

/**
 * The one JSON configuration of the protocol. Writing is canonical (properties sorted, no
 * whitespace) so the same envelope always has the same bytes and digest; reading is strict: no
 * unknown or duplicate fields, no missing ones, no nulls, no type coercion, nothing after the value.
 */
public final class ProtocolJson {

    private final JsonMapper mapper = JsonMapper.builder()
            .enable(MapperFeature.SORT_PROPERTIES_ALPHABETICALLY)
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .disable(SerializationFeature.INDENT_OUTPUT)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_INVALID_SUBTYPE)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    public byte[] write(Object value) {
        try {
            return mapper.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Decodes and validates; any failure is one line naming what was wrong. */
    public <T> T read(byte[] json, Class<T> type) throws PayloadException {
        try {
            return mapper.readValue(json, type);
        } catch (ValueInstantiationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new PayloadException(oneLine(cause.getMessage()));
        } catch (JsonProcessingException e) {
            throw new PayloadException(oneLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new PayloadException(oneLine(e.getMessage()));
        }
    }

    /**
     * The name a type of action, result or report has on the wire ({@code run_step}, {@code
     * step_exited}), for messages about what a node sent; its simple name if it has none.
     */
    public static String typeName(Class<?> type) {
        for (Class<?> root : type.getInterfaces()) {
            JsonSubTypes subTypes = root.getAnnotation(JsonSubTypes.class);
            if (subTypes != null) {
                for (JsonSubTypes.Type t : subTypes.value()) {
                    if (t.value() == type) {
                        return t.name();
                    }
                }
            }
        }
        return type.getSimpleName();
    }

    private static String oneLine(@Nullable String message) {
        String m = message == null ? "invalid JSON" : message.replaceAll("\\s*\\R\\s*", " ");
        return m.length() > 300 ? m.substring(0, 300) + "…" : m;
    }

    /** The payload verified but is not a valid protocol document. */
    public static final class PayloadException extends Exception {
        public PayloadException(String message) {
            super(message);
        }
    }
}
