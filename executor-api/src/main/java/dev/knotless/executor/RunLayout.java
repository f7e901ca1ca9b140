package dev.knotless.executor;

/** The paths every run sees, whatever the executor (docs/reference/run-environment.md). */
public final class RunLayout {
    /** The checkout, and every step's working directory. */
    public static final String WORK = "/work";
    /** Step scripts, one file per step: {@code /steps/1}, {@code /steps/2}, … */
    public static final String STEPS = "/steps";
    /** What the run wants shown on its check. */
    public static final String OUTPUTS = "/outputs";

    private RunLayout() {}

    public static String stepScript(int number) {
        return STEPS + "/" + number;
    }
}
