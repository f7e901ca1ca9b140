package dev.knotless.runner.state;

import dev.knotless.plan.Dialect;
import java.util.Objects;

/**
 * The workflow a forge sent with its event ({@code ForgeEvent.Pipeline}), kept with the queued run:
 * such a run is read from here when it starts, not from the commit, where the file may differ or be
 * absent.
 *
 * @param file the file name the forge gave it, shown in parser errors
 * @param text the YAML as sent
 */
public record SuppliedWorkflow(String file, Dialect dialect, String text) {

    /** A text past this is refused when the pipeline is read; the queue holds no more. */
    public static final int MAX_TEXT_BYTES = 1 << 20;

    public SuppliedWorkflow {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(dialect, "dialect");
        Objects.requireNonNull(text, "text");
    }
}
