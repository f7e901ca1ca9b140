package dev.knotless.spindle.knot;

import java.util.Locale;

/**
 * A knot's address as tangled writes it: {@code host} or {@code host:port}, no scheme, no path.
 * The host is a DNS name or a dotted IPv4 address (IPv6 literals are not taken); it is kept in
 * lower case, the one spelling under which a knot's cursor is stored.
 */
final class KnotHost {

    static final int MAX_LENGTH = 253 + 6;

    private KnotHost() {
    }

    /** {@code host} in lower case; an {@link IllegalArgumentException} with a one-line reason when it is not a knot's address. */
    static String check(String host) {
        if (host.isEmpty() || host.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a knot is host or host:port of at most " + MAX_LENGTH + " characters, not "
                    + Text.quote(host));
        }
        String h = host.toLowerCase(Locale.ROOT);
        String name = h;
        int colon = h.indexOf(':');
        if (colon >= 0) {
            name = h.substring(0, colon);
            String port = h.substring(colon + 1);
            if (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535
                    || port.startsWith("0")) {
                throw new IllegalArgumentException("a knot is host or host:port (port 1 to 65535, no scheme, no path), not "
                        + Text.quote(host));
            }
        }
        if (name.isEmpty() || name.length() > 253) {
            throw new IllegalArgumentException("a knot's host name is 1 to 253 characters, not " + Text.quote(host));
        }
        for (String label : name.split("\\.", -1)) {
            if (!label.matches("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")) {
                throw new IllegalArgumentException("a knot is host or host:port (letters, digits, '-' and '.'; no scheme,"
                        + " no path), not " + Text.quote(host));
            }
        }
        return h;
    }
}
