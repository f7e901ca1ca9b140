package dev.knotless.node.image;

import dev.knotless.registry.Digest;
/** A reference to a blob: what it is, its digest and its exact size in bytes. */
public record Descriptor(String mediaType, Digest digest, long size) {

    public Descriptor {
        if (mediaType == null || mediaType.isBlank()) {
            throw new IllegalArgumentException("descriptor has no mediaType");
        }
        if (digest == null) {
            throw new IllegalArgumentException("descriptor has no digest");
        }
        if (size < 0) {
            throw new IllegalArgumentException("descriptor of " + digest + " has a negative size");
        }
    }
}
