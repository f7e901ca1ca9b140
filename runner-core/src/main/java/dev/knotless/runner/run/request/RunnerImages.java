package dev.knotless.runner.run.request;

import dev.knotless.plan.Workflow;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The image a run gets when its workflow names none: the operator's table of machine labels
 * ({@code --runs-on ubuntu-latest=IMAGE}, for GitHub's {@code runs-on}) and the default image
 * ({@code --image}). The first of the workflow's labels, in its order, that the table names
 * decides; a workflow whose labels the table does not name, or that has none (ours), gets the
 * default. The same rule in {@code exec} and the daemon.
 *
 * @param byLabel label to image, in the order given
 */
public record RunnerImages(String fallback, Map<String, String> byLabel) {

    public RunnerImages {
        Objects.requireNonNull(fallback, "fallback");
        byLabel = Collections.unmodifiableMap(new LinkedHashMap<>(byLabel));
    }

    /** Only the default image. */
    public static RunnerImages of(String fallback) {
        return new RunnerImages(fallback, Map.of());
    }

    /**
     * The table of {@code LABEL=IMAGE} entries as flags give them.
     *
     * @throws IllegalArgumentException naming an entry that is not {@code LABEL=IMAGE}, or a label given twice
     */
    public static RunnerImages parse(String fallback, Iterable<String> entries) {
        Map<String, String> byLabel = new LinkedHashMap<>();
        for (String entry : entries) {
            int eq = entry.indexOf('=');
            if (eq <= 0 || eq == entry.length() - 1 || entry.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("--runs-on '" + entry + "': expected LABEL=IMAGE, such as"
                        + " ubuntu-latest=registry.example/ci/ubuntu:24.04");
            }
            if (byLabel.putIfAbsent(entry.substring(0, eq), entry.substring(eq + 1)) != null) {
                throw new IllegalArgumentException("--runs-on names '" + entry.substring(0, eq) + "' twice");
            }
        }
        return new RunnerImages(fallback, byLabel);
    }

    /** The image for {@code workflow} when it names none itself. */
    public String imageFor(Workflow workflow) {
        for (String label : workflow.labels()) {
            String image = byLabel.get(label);
            if (image != null) {
                return image;
            }
        }
        return fallback;
    }
}
