package dev.knotless.cli;

import dev.knotless.executor.Resources;
import dev.knotless.runner.run.environment.ImagePins;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunnerImages;
import dev.knotless.runner.run.runtime.NodeBundle;
import dev.knotless.runner.run.runtime.Runtimes;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    @Option(names = "--actions-node", paramLabel = "PATH",
            description = "The Node on this host that runs GitHub's JavaScript actions (runs.using: node20, node24),"
                    + " brought into each run that uses one with the libraries it loads, so that no image needs it."
                    + " Without it, such a run ends with an error saying so.")
    Path actionsNode;

    @Option(names = "--plain-http-registry", paramLabel = "HOST:PORT",
            description = "A registry to ask over plain HTTP which digest a tag names, as image references name it"
                    + " (repeatable; like Docker's insecure-registries). A run's images are pinned by digest as it starts"
                    + " where their names spell out a registry; only registries on loopback are plain HTTP otherwise.")
    List<String> plainHttpRegistries = new ArrayList<>();

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

    /** @throws IllegalArgumentException naming --actions-node when that Node cannot be brought */
    Runtimes runtimes() {
        if (actionsNode == null) {
            return Runtimes.NONE;
        }
        try {
            return new Runtimes(Map.of("node", NodeBundle.of(actionsNode)));
        } catch (IOException e) {
            throw new IllegalArgumentException("--actions-node " + actionsNode + ": " + e.getMessage(), e);
        }
    }

    long cacheBudgetBytes() {
        return Resources.parseMemory(cacheBudget);
    }

    /** How the runs of this command pin their images by digest. */
    ImagePins imagePins() {
        try {
            return ImagePins.fromRegistries(java.util.Set.copyOf(plainHttpRegistries));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--plain-http-registry: " + e.getMessage());
        }
    }
}
