package dev.knotless.cli;

import dev.knotless.executor.Resources;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunnerImages;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/** How each run is bounded and what it runs in when a workflow says nothing: shared by exec and daemon. */
final class RunOptions {

    @Option(names = "--image", defaultValue = "debian:bookworm-slim", paramLabel = "IMAGE",
            description = "The image for workflows that name none (default: ${DEFAULT-VALUE}).")
    String image;

    @Option(names = "--runs-on", paramLabel = "LABEL=IMAGE",
            description = "The image for workflows that name none and ask for a machine labelled LABEL (GitHub's"
                    + " runs-on), over --image; repeatable. The first of a workflow's labels named here decides.")
    List<String> runsOn = new ArrayList<>();

    @Option(names = "--checkout-limit", defaultValue = "2Gi", paramLabel = "SIZE",
            description = "The largest checkout sent into a run (default: ${DEFAULT-VALUE}).")
    String checkoutLimit;

    @Option(names = "--kill-grace", defaultValue = "5s", paramLabel = "DURATION", converter = DurationConverter.class,
            description = "Between TERM and KILL when a step is stopped (default: ${DEFAULT-VALUE}).")
    Duration killGrace;

    @Option(names = "--cache-budget", defaultValue = "5Gi", paramLabel = "SIZE",
            description = "Total size of stored cache layers; least recently used go first (default: ${DEFAULT-VALUE}).")
    String cacheBudget;

    @ArgGroup(exclusive = false, heading = "%nCeilings, on every executor:%n")
    CeilingOptions ceilings = new CeilingOptions();

    /** @throws IllegalArgumentException naming the flag whose value cannot be used */
    RunLimits limits() {
        return RunLimits.DEFAULT
                .withCheckoutBytes(Resources.parseMemory(checkoutLimit))
                .withKillGrace(killGrace)
                .withCeilings(ceilings.defaultTimeout, ceilings.ceilings());
    }

    /** @throws IllegalArgumentException naming a --runs-on entry that cannot be used */
    RunnerImages images() {
        return RunnerImages.parse(image, runsOn);
    }

    long cacheBudgetBytes() {
        return Resources.parseMemory(cacheBudget);
    }
}
