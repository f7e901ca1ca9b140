package dev.knotless.atproto.verify;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A record's AT-URI: {@code at://DID/COLLECTION/RKEY}. A handle in place of the DID is refused: what is signed is the DID. */
public record AtUri(String did, String collection, String rkey) {

    private static final Pattern SHAPE = Pattern.compile(
            "at://(did:[a-z]+:[a-zA-Z0-9._:%-]{1,2000})/([a-zA-Z][a-zA-Z0-9-]*(?:\\.[a-zA-Z0-9-]+){2,})/([a-zA-Z0-9._:~-]{1,512})");

    public static AtUri parse(String text) {
        Matcher m = SHAPE.matcher(text);
        if (!m.matches() || m.group(3).equals(".") || m.group(3).equals("..")) {
            throw new IllegalArgumentException("not a record's AT-URI (at://DID/COLLECTION/RKEY): "
                    + (text.length() > 200 ? text.substring(0, 200) + "…" : text));
        }
        return new AtUri(m.group(1), m.group(2), m.group(3));
    }

    @Override
    public String toString() {
        return "at://" + did + "/" + collection + "/" + rkey;
    }
}
