package dev.knotless.spindle.setup;

import dev.knotless.text.OneLine;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A repository on tangled that chose this spindle: its {@code sh.tangled.repo} record.
 *
 * @param atUri the record, {@code at://DID/sh.tangled.repo/RKEY}
 * @param did the repository's owner, whose ATProto repository holds the record
 * @param name the repository's name on its knot
 * @param knot the git host serving it, {@code host[:port]}, lower case
 */
public record TangledRepo(String atUri, String did, String name, String knot) {

    public static final String COLLECTION = "sh.tangled.repo";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    private static final int OWNER_PART = 100;

    /** @throws IllegalArgumentException one line saying which field is wrong */
    public TangledRepo {
        Objects.requireNonNull(atUri, "atUri");
        Objects.requireNonNull(did, "did");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(knot, "knot");
        if (!Names.isDid(did)) {
            throw new IllegalArgumentException("owner '" + OneLine.ofUntrusted(did, 80) + "' is not a DID");
        }
        String prefix = "at://" + did + "/" + COLLECTION + "/";
        if (!atUri.startsWith(prefix) || !Names.isRecordKey(atUri.substring(prefix.length()))) {
            throw new IllegalArgumentException("'" + OneLine.ofUntrusted(atUri, 120) + "' is not a " + COLLECTION + " record of " + did);
        }
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name '" + OneLine.ofUntrusted(name, 120)
                    + "' is not 1-100 letters, digits, '.', '_' or '-' starting with a letter or digit");
        }
        knot = Names.host("knot", knot);
    }

    /** The record key. */
    public String rkey() {
        return atUri.substring(("at://" + did + "/" + COLLECTION + "/").length());
    }

    /**
     * This project's name for it, {@code OWNER/NAME}: OWNER the DID with {@code :} and {@code %}
     * made {@code -}, as the ATProto forge names repositories (a DID never changes where a handle
     * may, and a renamed repository would start again from a new baseline).
     */
    public String repoName() {
        return owner(did) + "/" + name;
    }

    /** The DID as a name part: {@code :} and {@code %} become {@code -}, at most 100 characters. */
    static String owner(String did) {
        String part = did.replace(':', '-').replace('%', '-').replaceAll("[^A-Za-z0-9._-]", "-");
        return part.length() > OWNER_PART ? part.substring(0, OWNER_PART) : part;
    }
}
