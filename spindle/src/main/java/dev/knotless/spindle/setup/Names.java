package dev.knotless.spindle.setup;

import dev.knotless.text.OneLine;
import java.util.regex.Pattern;

/** The syntax checks records' fields go through: other accounts' words, so nothing is taken unchecked. */
final class Names {

    /** A DID as ATProto writes one: {@code did:METHOD:ID}, at most 2,048 characters. */
    private static final Pattern DID = Pattern.compile("did:[a-z]+:[A-Za-z0-9._:%-]*[A-Za-z0-9._-]");
    static final int MAX_DID = 2048;
    /**
     * A host name (or IPv4 address) with an optional port: what tangled writes for a knot or a
     * spindle. No scheme, no path, no user part: it is put into URLs, so nothing that could change
     * what the URL means gets through.
     */
    private static final Pattern HOST = Pattern.compile(
            "(?i)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::[0-9]{1,5})?");
    private static final int MAX_HOST = 253 + 6;
    /** ATProto's record key syntax. */
    private static final Pattern RKEY = Pattern.compile("[A-Za-z0-9._:~-]{1,512}");

    private Names() {}

    static boolean isDid(String s) {
        return s.length() <= MAX_DID && DID.matcher(s).matches();
    }

    /** {@code s} as a host, lower case; throws saying why when it is not one. */
    static String host(String what, String s) {
        if (s.length() > MAX_HOST || !HOST.matcher(s).matches()) {
            throw new IllegalArgumentException(what + " '" + OneLine.ofUntrusted(s, 80) + "' is not a host name[:port] (no scheme, no path)");
        }
        int colon = s.indexOf(':');
        if (colon >= 0) {
            int port = Integer.parseInt(s.substring(colon + 1));
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException(what + " '" + OneLine.ofUntrusted(s, 80) + "' has port " + port + ", not 1-65535");
            }
        }
        return s.toLowerCase(java.util.Locale.ROOT);
    }

    static boolean isRecordKey(String s) {
        return RKEY.matcher(s).matches() && !s.equals(".") && !s.equals("..");
    }

}
