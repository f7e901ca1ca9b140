package dev.knotless.node.image;

import dev.knotless.registry.Digest;
import dev.knotless.registry.ImageException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What the runc bundle needs from an image's config blob: the process defaults. Absent fields are
 * empty lists / empty strings (as the OCI image spec says: the runtime's default applies).
 */
public record ImageConfig(List<String> env, List<String> entrypoint, List<String> cmd, String workingDir, String user) {

    public ImageConfig {
        env = List.copyOf(env);
        entrypoint = List.copyOf(entrypoint);
        cmd = List.copyOf(cmd);
        workingDir = workingDir == null ? "" : workingDir;
        user = user == null ? "" : user;
    }

    static ImageConfig parse(byte[] json, Digest digest) throws ImageException {
        JsonNode root = JsonBlob.object(json, "image config " + digest);
        JsonNode config = root.path("config");
        return new ImageConfig(strings(config, "Env", digest), strings(config, "Entrypoint", digest),
                strings(config, "Cmd", digest), text(config, "WorkingDir", digest), text(config, "User", digest));
    }

    private static List<String> strings(JsonNode config, String field, Digest digest) throws ImageException {
        JsonNode node = config.path(field);
        if (node.isMissingNode() || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw new ImageException("image config " + digest + ": config." + field + " is not a list of strings");
        }
        List<String> values = new ArrayList<>();
        for (JsonNode item : node) {
            if (!item.isTextual()) {
                throw new ImageException("image config " + digest + ": config." + field + " is not a list of strings");
            }
            values.add(item.textValue());
        }
        return values;
    }

    private static String text(JsonNode config, String field, Digest digest) throws ImageException {
        JsonNode node = config.path(field);
        if (node.isMissingNode() || node.isNull()) {
            return "";
        }
        if (!node.isTextual()) {
            throw new ImageException("image config " + digest + ": config." + field + " is not a string");
        }
        return node.textValue();
    }
}
