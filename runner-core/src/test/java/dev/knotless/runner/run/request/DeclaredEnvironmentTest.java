package dev.knotless.runner.run.request;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Resources;
import dev.knotless.plan.Deployment;
import dev.knotless.plan.Step;
import dev.knotless.plan.Triggers;
import dev.knotless.plan.Workflow;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeclaredEnvironmentTest {

    static Workflow deployingTo(String environment) {
        Workflow w = new Workflow("deploy", "d.yml", Triggers.DEFAULT, List.of(), null, null, Resources.DEFAULT, Map.of(),
                List.of(), List.of(new Step("deploy", "true", null, List.of())));
        return new Workflow(w.name(), w.file(), w.on(), w.runners(), w.image(), w.timeout(), w.resources(), w.variables(),
                w.cache(), w.steps(), w.reports(), w.services(), w.needs(), w.artifacts(), w.cell(), w.workspace(),
                w.stepFiles(), w.prePost(), w.outputs(), w.labels(), w.condition(), w.continueOnError(),
                environment == null ? null : new Deployment(environment, null), null);
    }

    @Test
    void aWorkflowThatNamesNoEnvironmentIsNeverRefused() {
        assertThat(DeclaredEnvironment.refusal(deployingTo(null), "refs/heads/main", null)).isEmpty();
    }

    @Test
    void anEnvironmentNotDeclaredIsRefusedSayingThatApprovalsAreNotCarriedOut() {
        assertThat(DeclaredEnvironment.refusal(deployingTo("production"), "refs/heads/main", null)).hasValue(
                "environment 'production' is not declared for this repository on this runner (knotless-run environments"
                        + " add); approvals and other protection rules are not carried out here");
        // one of another name is no declaration of this one
        assertThat(DeclaredEnvironment.refusal(deployingTo("production"), "refs/heads/main",
                new DeclaredEnvironment("staging", List.of()))).isPresent();
    }

    @Test
    void aDeclaredEnvironmentLetsItsBranchesDeployAndNoOthers() {
        DeclaredEnvironment declared = new DeclaredEnvironment("production", List.of("main", "release/*"));
        assertThat(DeclaredEnvironment.refusal(deployingTo("production"), "refs/heads/main", declared)).isEmpty();
        assertThat(DeclaredEnvironment.refusal(deployingTo("production"), "refs/heads/release/2.0", declared)).isEmpty();
        assertThat(DeclaredEnvironment.refusal(deployingTo("production"), "refs/heads/feature", declared)).hasValue(
                "environment 'production' may be deployed to from main, release/* only, and this run is of branch feature");
        assertThat(DeclaredEnvironment.refusal(deployingTo("production"), "refs/pulls/3/head", declared)).hasValue(
                "environment 'production' may be deployed to from main, release/* only, and this run is of refs/pulls/3/head");
        assertThat(DeclaredEnvironment.refusal(deployingTo("production"), "refs/heads/feature",
                new DeclaredEnvironment("production", List.of()))).isEmpty();
    }
}
