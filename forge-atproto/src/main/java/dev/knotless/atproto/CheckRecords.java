package dev.knotless.atproto;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.xrpc.Records;
import dev.knotless.checks.Check;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.TestSummary;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A check as a {@code dev.knotless.check} record (docs/reference/lexicons/dev.knotless.check.json).
 * Strings are cut to the lexicon's byte limits, on a character boundary, so that a record never
 * fails a reader's validation for a long step name or reason.
 */
final class CheckRecords {

    static final String COLLECTION = "dev.knotless.check";
    static final int SHORT = 512;
    static final int LONG = 4096;

    /** An output's name, type and size; its blob when it was uploaded. */
    record OutputBlob(String name, String mediaType, long size, Records.@Nullable Blob blob) {}

    private CheckRecords() {}

    /**
     * @param repo the repository's AT-URI, or its clone URL when it has none
     * @param log the uploaded log, or null (a running check, or no log)
     */
    static ObjectNode of(Check check, String repo, Records.@Nullable Blob log, List<OutputBlob> outputs) {
        Objects.requireNonNull(repo, "repo");
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode r = f.objectNode();
        r.put("$type", COLLECTION);
        r.put("runId", cap(check.id(), SHORT));
        r.put("repo", cap(repo, LONG));
        putText(r, "commit", check.commit(), SHORT);
        putText(r, "ref", check.ref(), SHORT);
        putText(r, "workflow", check.workflow(), SHORT);
        if (check.event() != null) {
            r.put("event", check.event().wireName());
        }
        putText(r, "runner", check.runner(), SHORT);
        if (check.executor() != null) {
            r.put("executor", cap(check.executor().value(), SHORT));
        }
        r.put("status", check.status().wireName());
        putText(r, "reason", check.reason(), LONG);
        r.put("startedAt", datetime(check.startedAt()));
        if (check.finishedAt() != null) {
            r.put("finishedAt", datetime(check.finishedAt()));
        }
        ArrayNode steps = r.putArray("steps");
        for (StepResult s : check.steps()) {
            ObjectNode step = steps.addObject();
            step.put("name", cap(s.name(), SHORT));
            step.put("status", s.status().wireName());
            if (s.exitCode() != null) {
                step.put("exitCode", s.exitCode());
            }
            step.put("durationMs", s.durationMs());
            putText(step, "reason", s.reason(), LONG);
            if (!s.attempts().isEmpty()) {
                step.put("earlierAttempts", s.attempts().size());
            }
            if (s.continuedOnError()) {
                step.put("continuedOnError", true);
            }
        }
        if (check.tests() != null) {
            r.set("tests", tests(check.tests()));
        }
        if (log != null) {
            r.set("log", log.ref());
        }
        if (!outputs.isEmpty()) {
            ArrayNode out = r.putArray("outputs");
            for (OutputBlob o : outputs) {
                ObjectNode n = out.addObject();
                n.put("name", cap(o.name(), SHORT));
                n.put("mediaType", cap(o.mediaType(), SHORT));
                n.put("size", o.size());
                if (o.blob() != null) {
                    n.set("blob", o.blob().ref());
                }
            }
        }
        // Lexicon convention: when the record was made. The run's start, so every update keeps it.
        r.put("createdAt", datetime(check.startedAt()));
        return r;
    }

    private static ObjectNode tests(TestSummary t) {
        ObjectNode n = JsonNodeFactory.instance.objectNode();
        n.put("files", t.files());
        n.put("tests", t.tests());
        n.put("failures", t.failures());
        n.put("errors", t.errors());
        n.put("skipped", t.skipped());
        n.put("timeMs", t.timeMs());
        ArrayNode failed = n.putArray("failed");
        for (TestSummary.FailedTest ft : t.failed()) {
            failed.addObject()
                    .put("className", cap(ft.className(), SHORT))
                    .put("name", cap(ft.name(), SHORT))
                    .put("message", cap(ft.message(), LONG))
                    .put("error", ft.error());
        }
        return n;
    }

    private static void putText(ObjectNode n, String field, @Nullable String value, int maxBytes) {
        if (value != null) {
            n.put(field, cap(value, maxBytes));
        }
    }

    /** Lexicon datetimes: RFC 3339 with a zone; {@link Instant#toString()} gives {@code …Z}. */
    static String datetime(Instant t) {
        return t.toString();
    }

    /** {@code s} cut to at most {@code maxBytes} bytes of UTF-8, never inside a character. */
    static String cap(String s, int maxBytes) {
        if (s.length() * 3 <= maxBytes || s.getBytes(StandardCharsets.UTF_8).length <= maxBytes) {
            return s;
        }
        int bytes = 0;
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + n > maxBytes - 3) {
                break;
            }
            bytes += n;
            i += Character.charCount(cp);
        }
        return s.substring(0, i) + "…";
    }
}
