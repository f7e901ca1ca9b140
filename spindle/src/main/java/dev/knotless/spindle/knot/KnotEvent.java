package dev.knotless.spindle.knot;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One frame of a knot's event stream: the record key and NSID of what it announces, and the
 * event itself (a JSON object, unchecked: for {@code sh.tangled.pipeline}, {@link Pipeline#parse}
 * checks it).
 *
 * @param knot the knot it came from, lower case
 */
public record KnotEvent(String knot, String rkey, String nsid, JsonNode event) {
}
