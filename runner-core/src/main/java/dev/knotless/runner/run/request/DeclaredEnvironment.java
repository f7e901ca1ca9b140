package dev.knotless.runner.run.request;

import dev.knotless.plan.Deployment;
import dev.knotless.plan.Glob;
import dev.knotless.plan.Workflow;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The deployment environment a run's workflow names, as the operator declared it for the
 * repository ({@code environments add}): its name and the branches that may deploy to it. Its
 * variables are in the request's configuration already, its secrets are granted under its name.
 *
 * @param branches branch globs, as {@code on.push.branches} reads them; empty for every branch
 */
public record DeclaredEnvironment(String name, List<String> branches) {

    public DeclaredEnvironment {
        branches = List.copyOf(branches);
    }

    /**
     * Why {@code workflow} must not run in the environment it names, reached by {@code ref}, when
     * {@code declared} is what the operator declared of it (null: nothing); empty when it may run
     * (or names none). What GitHub's protection rules would also ask (reviewers, wait timers) is
     * not carried out here, so only an environment the operator declared runs at all.
     */
    public static Optional<String> refusal(Workflow workflow, String ref, @Nullable DeclaredEnvironment declared) {
        Deployment deployment = workflow.deployment();
        if (deployment == null) {
            return Optional.empty();
        }
        if (declared == null || !declared.name().equals(deployment.name())) {
            return Optional.of("environment '" + deployment.name() + "' is not declared for this repository on this runner"
                    + " (knotless-run environments add); approvals and other protection rules are not carried out here");
        }
        if (declared.branches().isEmpty()) {
            return Optional.empty();
        }
        String branch = ref.startsWith("refs/heads/") ? ref.substring("refs/heads/".length()) : null;
        if (branch != null && declared.branches().stream().anyMatch(glob -> Glob.matches(glob, branch))) {
            return Optional.empty();
        }
        return Optional.of("environment '" + deployment.name() + "' may be deployed to from " + String.join(", ",
                declared.branches()) + " only, and this run is of " + (branch != null ? "branch " + branch : ref));
    }
}
