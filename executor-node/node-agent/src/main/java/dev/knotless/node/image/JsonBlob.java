package dev.knotless.node.image;

import dev.knotless.registry.ImageException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;

/** A blob that must hold one JSON object (a manifest, an index, an image config). */
final class JsonBlob {

    private JsonBlob() {}

    /** The object {@code bytes} hold; {@code what} names the blob when they are not JSON or not an object. */
    static JsonNode object(byte[] bytes, String what) throws ImageException {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(bytes);
        } catch (IOException e) {
            throw new ImageException(what + " is not JSON");
        }
        if (root == null || !root.isObject()) {
            throw new ImageException(what + " is not a JSON object");
        }
        return root;
    }
}
