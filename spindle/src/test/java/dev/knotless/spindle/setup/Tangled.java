package dev.knotless.spindle.setup;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Tangled's records as tangled writes them, for the tests. */
final class Tangled {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String CREATED = "2026-05-01T09:00:00Z";

    private Tangled() {}

    static ObjectNode spindle() {
        return JSON.createObjectNode().put("$type", SpindleRecords.SPINDLE).put("createdAt", CREATED);
    }

    static ObjectNode member(String subject, String instance) {
        return JSON.createObjectNode().put("$type", SpindleRecords.MEMBER).put("subject", subject)
                .put("instance", instance).put("createdAt", CREATED);
    }

    /** A repository record; {@code spindle} null for one that names none. */
    static ObjectNode repo(String name, String knot, String spindle) {
        ObjectNode r = JSON.createObjectNode().put("$type", TangledRepo.COLLECTION).put("name", name).put("knot", knot)
                .put("createdAt", CREATED).put("description", "a repository");
        if (spindle != null) {
            r.put("spindle", spindle);
        }
        return r;
    }
}
