package dev.knotless.atproto.xrpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** What the record and blob calls give back. */
public final class Records {

    private Records() {}

    /** A record written: its AT-URI and the CID of this version. */
    public record Written(String uri, String cid) {}

    /** A record read: its AT-URI, CID and value (with its {@code $type}). */
    public record Stored(String uri, @Nullable String cid, ObjectNode value) {}

    /** One page of {@code listRecords}; {@code cursor} is null on the last page. */
    public record Page(List<Stored> records, @Nullable String cursor) {
        public Page {
            records = List.copyOf(records);
        }
    }

    /**
     * An uploaded blob, as a record refers to it: {@code {"$type": "blob", "ref": {"$link": cid},
     * "mimeType", "size"}}.
     */
    public record Blob(JsonNode ref) {

        public String cid() {
            return ref.path("ref").path("$link").asText();
        }

        public long size() {
            return ref.path("size").asLong();
        }
    }
}
