package dev.knotless.executor;

/** Label keys put on everything an executor creates. */
public final class Labels {
    /** The runner that created the object; the orphan sweep selects by it. */
    public static final String RUNNER = "dev.knotless.runner";
    /** The run the object belongs to. */
    public static final String RUN = "dev.knotless.run";

    private Labels() {}
}
