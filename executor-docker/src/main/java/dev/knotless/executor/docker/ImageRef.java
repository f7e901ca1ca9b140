package dev.knotless.executor.docker;

/**
 * An image reference split the way {@code POST /images/create} wants it: repository, and a tag or
 * digest ({@code latest} when neither is given).
 */
record ImageRef(String repository, String tagOrDigest) {

    static ImageRef parse(String reference) {
        int at = reference.indexOf('@');
        if (at >= 0) {
            return new ImageRef(stripTag(reference.substring(0, at)), reference.substring(at + 1));
        }
        int colon = reference.lastIndexOf(':');
        if (colon > reference.lastIndexOf('/')) {
            return new ImageRef(reference.substring(0, colon), reference.substring(colon + 1));
        }
        return new ImageRef(reference, "latest");
    }

    private static String stripTag(String name) {
        int colon = name.lastIndexOf(':');
        return colon > name.lastIndexOf('/') ? name.substring(0, colon) : name;
    }
}
