package dev.knotless.executor;

import java.util.List;

/**
 * What an orphan sweep did.
 *
 * @param removed what was deleted, as the executor names it (container id, Job name)
 * @param failed what could not be deleted, each with the reason
 */
public record SweepReport(List<String> removed, List<String> failed) {
    public SweepReport {
        removed = List.copyOf(removed);
        failed = List.copyOf(failed);
    }

    public static SweepReport empty() {
        return new SweepReport(List.of(), List.of());
    }
}
