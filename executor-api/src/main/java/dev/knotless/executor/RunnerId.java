package dev.knotless.executor;

import java.util.regex.Pattern;

/**
 * What a runner id may be: the one grammar the records, the workflow's {@code runners:}, the CLI
 * and the executors accept.
 *
 * <p>Two forms. The old label-like id ({@code ci-1}), which every executor could carry as it is.
 * And a DID, which is how the design this runner follows names runners, restricted to the two
 * methods ATProto uses: {@code did:plc:} and 24 base32 characters, and {@code did:web:} with a
 * host name, an optional port written {@code %3A<port>} and optional {@code :}-separated path
 * segments. A DID does not fit every executor's label grammar ({@code :}, {@code %}, length), so
 * where a label needs one the executors put {@link RunnerLabel#of} there and keep the raw id
 * elsewhere (docs/design/runner-ids.md).
 */
public final class RunnerId {

    /**
     * Bounded so that {@code <id>.lock} fits a file name (255 bytes on Linux; ids are ASCII):
     * the state directory names lock files by the raw id.
     */
    public static final int MAX_LENGTH = 250;

    /** What an id may be, for one-line error messages. */
    public static final String GRAMMAR = "1-63 letters, digits, '.', '_' or '-' starting with a letter or digit,"
            + " or a DID: did:plc:<24 base32 characters> or did:web:<host>[%3A<port>][:<path>...]";

    private static final Pattern LABEL_LIKE = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
    private static final Pattern PLC = Pattern.compile("did:plc:[a-z2-7]{24}");
    private static final String HOST_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
    private static final Pattern WEB = Pattern.compile("did:web:(" + HOST_LABEL + "(?:\\." + HOST_LABEL + ")*)"
            + "(?:%3A([0-9]{1,5}))?((?::[A-Za-z0-9][A-Za-z0-9._-]*)*)");

    private RunnerId() {}

    /** Whether {@code id} is a runner id. */
    public static boolean valid(String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_LENGTH) {
            return false;
        }
        if (LABEL_LIKE.matcher(id).matches() || PLC.matcher(id).matches()) {
            return true;
        }
        var web = WEB.matcher(id);
        if (!web.matches() || web.group(1).length() > 253) {
            return false;
        }
        String port = web.group(2);
        return port == null || (Integer.parseInt(port) >= 1 && Integer.parseInt(port) <= 65535);
    }

    /**
     * Returns {@code id} when it is a runner id.
     *
     * @throws IllegalArgumentException saying, on one line, what an id may be
     */
    public static String check(String id) {
        if (!valid(id)) {
            throw new IllegalArgumentException("runner id '" + id + "' must be " + GRAMMAR + ", at most " + MAX_LENGTH
                    + " characters");
        }
        return id;
    }

    /** Whether {@code id} is a DID rather than a label-like id. */
    public static boolean isDid(String id) {
        return id.startsWith("did:");
    }
}
