package dev.knotless.node.cni;

import java.util.regex.Pattern;

/**
 * Container ids as the CNI spec allows them (an alphanumeric, then alphanumerics, {@code _ . -});
 * they also name files here, so a valid id is always a plain file name.
 */
final class ContainerIds {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,127}");

    private ContainerIds() {}

    static boolean valid(String id) {
        return id != null && ID.matcher(id).matches();
    }

    static String require(String id) {
        if (!valid(id)) {
            throw new IllegalArgumentException("not a container id: \"" + id
                    + "\" (a letter or digit, then up to 127 letters, digits, '_', '.' or '-')");
        }
        return id;
    }
}
