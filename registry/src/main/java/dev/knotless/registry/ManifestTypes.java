package dev.knotless.registry;

/** The manifest media types a registry is asked for, and the {@code Accept} header that lists them. */
public final class ManifestTypes {

    public static final String OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
    public static final String OCI_INDEX = "application/vnd.oci.image.index.v1+json";
    public static final String DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json";
    public static final String DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json";
    /** Every type above: an index or list when the image has one (the digest a pull by tag resolves to). */
    public static final String ACCEPT = String.join(", ", OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_LIST);

    private ManifestTypes() {}
}
