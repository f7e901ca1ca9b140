package dev.knotless.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.tar.Printable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The body of {@code POST /api/runs}: {@code {"repo", "workflow", "branch"?, "inputs"?}}, read
 * whole up to {@link #MAX_BYTES} and checked field by field before anything is looked up; a body
 * it refuses is an {@link ApiError} that says what to send (413 when too large, else 400).
 *
 * @param branch null for the repository's default branch
 * @param inputs input name to value as text, in the order given
 */
record ManualRunRequest(String repo, String workflow, @Nullable String branch, Map<String, String> inputs) {

    /** Larger bodies are refused unread: a manual run's request is a few names and inputs. */
    static final int MAX_BYTES = 64 * 1024;

    static ManualRunRequest read(InputStream in, ObjectMapper json) throws IOException {
        byte[] body = in.readNBytes(MAX_BYTES + 1);
        if (body.length > MAX_BYTES) {
            throw new ApiError(413, "a run request is at most " + MAX_BYTES + " bytes");
        }
        JsonNode request;
        try {
            request = json.readTree(body);
        } catch (IOException e) {
            throw ApiError.badRequest("the body is not JSON: {\"repo\": \"owner/name\", \"workflow\": \"name\"}");
        }
        if (request == null || !request.isObject()) {
            throw ApiError.badRequest("the body must be a JSON object: {\"repo\": \"owner/name\", \"workflow\": \"name\"}");
        }
        for (Iterator<String> names = request.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!List.of("repo", "workflow", "branch", "inputs").contains(name)) {
                throw ApiError.badRequest("unknown field '" + Printable.name(name) + "' (use repo, workflow, branch, inputs)");
            }
        }
        String repo = text(request, "repo", true);
        String workflow = text(request, "workflow", true);
        String branch = text(request, "branch", false);
        Map<String, String> inputs = new LinkedHashMap<>();
        JsonNode given = request.get("inputs");
        if (given != null && !given.isNull()) {
            if (!given.isObject()) {
                throw ApiError.badRequest("'inputs' must be an object of input names to text values");
            }
            for (var field : given.properties()) {
                if (!field.getValue().isValueNode() || field.getValue().isNull()) {
                    throw ApiError.badRequest("input '" + Printable.name(field.getKey()) + "' must be a text, number or boolean");
                }
                inputs.put(field.getKey(), field.getValue().asText());
            }
        }
        return new ManualRunRequest(repo, workflow, branch, Collections.unmodifiableMap(inputs));
    }

    /** A field's one line of text; null when it is absent and not required. */
    private static @Nullable String text(JsonNode request, String field, boolean required) {
        JsonNode value = request.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw ApiError.badRequest("'" + field + "' is missing");
            }
            return null;
        }
        if (!value.isTextual() || value.asText().isBlank() || value.asText().length() > 255
                || value.asText().chars().anyMatch(Character::isISOControl)) {
            throw ApiError.badRequest("'" + field + "' must be a non-empty line of text, at most 255 characters");
        }
        return value.asText();
    }
}
