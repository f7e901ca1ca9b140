package dev.knotless.node.protocol;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

import java.util.regex.Pattern;

/**
 * The narrow forms that names and paths in actions may take. Every record validates its fields
 * with these in its constructor, so an action that decodes is an action that is safe to hand on.
 */
public final class Names {

    private static final Pattern NODE = Pattern.compile("[a-z0-9][a-z0-9.-]{0,62}");
    private static final Pattern ALLOCATION = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
    private static final Pattern NETWORK = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");
    private static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");
    private static final Pattern IDEMPOTENCY_KEY = Pattern.compile("[A-Za-z0-9._:/-]{1,128}");
    // A pinned image, no tag: an optional registry host (and port), which only counts when a '/'
    // follows it (as in Docker's reference grammar), then path components, then a sha256 digest.
    private static final String COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
    private static final Pattern IMAGE = Pattern.compile(
            "(?:[a-z0-9]+(?:[.-][a-z0-9]+)*(?::[0-9]{1,5})?/)?" + COMPONENT + "(?:/" + COMPONENT + ")*@sha256:[0-9a-f]{64}");
    private static final Pattern PATH_SEGMENT = Pattern.compile("[A-Za-z0-9._@+=,-]{1,255}");
    private static final int MAX_PATH = 1024;

    private Names() {}

    public static String node(String value) {
        return match(NODE, value, "node id", "lower-case letters, digits, '.' and '-', at most 63");
    }

    public static String allocation(String value) {
        return match(ALLOCATION, value, "allocation id", "lower-case letters, digits and '-', at most 63");
    }

    public static String network(String value) {
        return match(NETWORK, value, "network name", "lower-case letters, digits and '-', at most 63");
    }

    public static String keyId(String value) {
        return match(KEY_ID, value, "key id", "letters, digits and '._:-', at most 64");
    }

    public static String idempotencyKey(String value) {
        return match(IDEMPOTENCY_KEY, value, "idempotency key", "letters, digits and '._:/-', at most 128");
    }

    public static String image(String value) {
        return match(IMAGE, value, "image", "name@sha256:<64 hex digits>");
    }

    private static final Pattern LABEL_KEY = Pattern.compile("[a-z0-9][a-z0-9./-]{0,62}");
    private static final Pattern LABEL_VALUE = Pattern.compile("[A-Za-z0-9._:@/-]{0,128}");

    /** At most {@link Action#MAX_LABELS} labels of plain keys and values; returns a sorted copy. */
    public static Map<String, String> labels(Map<String, String> labels) {
        if (labels == null) {
            throw new IllegalArgumentException("labels are missing");
        }
        if (labels.size() > Action.MAX_LABELS) {
            throw new IllegalArgumentException("at most " + Action.MAX_LABELS + " labels, got " + labels.size());
        }
        labels.forEach((k, v) -> {
            match(LABEL_KEY, k, "label key", "lower-case letters, digits and './-', at most 63");
            match(LABEL_VALUE, v, "label value", "letters, digits and '._:@/-', at most 128");
        });
        return Collections.unmodifiableMap(new TreeMap<>(labels));
    }

    /**
     * A path in the run's filesystem: absolute, '/'-separated plain segments, no '.', '..' or empty
     * segments; "/" alone is the root.
     */
    public static String runPath(String value) {
        if (value == null) {
            throw new IllegalArgumentException("path is missing");
        }
        if (value.equals("/")) {
            return value;
        }
        if (!value.startsWith("/") || value.length() > MAX_PATH) {
            throw new IllegalArgumentException("path " + quote(value) + " is not a plain absolute path of at most " + MAX_PATH + " characters");
        }
        for (String segment : value.substring(1).split("/", -1)) {
            if (segment.equals(".") || segment.equals("..") || !PATH_SEGMENT.matcher(segment).matches()) {
                throw new IllegalArgumentException("path " + quote(value)
                        + " is not a plain absolute path (plain segments, no '.', '..' or empty ones)");
            }
        }
        return value;
    }

    static String quote(String value) {
        String shown = value.length() > 80 ? value.substring(0, 80) + "…" : value;
        return "'" + shown.replaceAll("\\p{Cntrl}", "?") + "'";
    }

    private static String match(Pattern pattern, String value, String what, String rule) {
        if (value == null) {
            throw new IllegalArgumentException(what + " is missing");
        }
        if (!pattern.matcher(value).matches()) {
            throw new IllegalArgumentException(what + " " + quote(value) + " is invalid (" + rule + ")");
        }
        return value;
    }
}
