package dev.knotless.executor;

/** The paths every run sees, whatever the executor (docs/reference/run-environment.md). */
public final class RunLayout {
    /** The checkout, and every step's working directory. */
    public static final String WORK = "/work";
    /** Step scripts, one file per step: {@code /steps/1}, {@code /steps/2}, … */
    public static final String STEPS = "/steps";
    /** What the run wants shown on its check. */
    public static final String OUTPUTS = "/outputs";
    /**
     * Programs the runner brings into the run for its steps ({@code /steps/.runtimes/node/bin/node}):
     * under {@link #STEPS}, which every executor makes writable for the runner's uploads whatever
     * the image's user and root filesystem.
     */
    public static final String RUNTIMES = STEPS + "/.runtimes";

    private RunLayout() {}

    public static String stepScript(int number) {
        return STEPS + "/" + number;
    }

    /**
     * {@code dir} in its plain absolute form ({@code //a/./b/} → {@code /a/b}).
     *
     * @throws IllegalArgumentException when it is relative or has a {@code ..} segment
     */
    public static String absolute(String dir) {
        if (!dir.startsWith("/")) {
            throw new IllegalArgumentException("not an absolute path: '" + dir + "'");
        }
        java.util.List<String> parts = new java.util.ArrayList<>();
        for (String part : dir.split("/")) {
            if (part.isEmpty() || part.equals(".")) {
                continue;
            }
            if (part.equals("..")) {
                throw new IllegalArgumentException("path with '..': '" + dir + "'");
            }
            parts.add(part);
        }
        return "/" + String.join("/", parts);
    }
}
