package dev.knotless.spindle;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The spindle speaks tangled's protocol over the daemon's runs and nothing below them (README.md):
 * no executor, not the daemon's HTTP server, not the CLI, nothing of runner-core. Every run it asks
 * for and every run it follows goes through the forge seam, so every executor serves it unchanged.
 */
class SpindleDependencyRulesTest {

    private final JavaClasses production = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.knotless.spindle");

    @Test
    void theSpindleNamesNoExecutorNorTheDaemonsServerNorTheCli() {
        noClasses().that().resideInAPackage("dev.knotless.spindle..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.knotless.executor.docker..",
                        "dev.knotless.executor.kubernetes..", "dev.knotless.executor.node..", "dev.knotless.node..", "dev.knotless.http..",
                        "dev.knotless.cli..", "io.fabric8..")
                .check(production);
    }

    /** What it sees of runs (the live feed, the run names) is the seam's, wired by the CLI. */
    @Test
    void theSpindleNamesNothingOfTheRunner() {
        noClasses().that().resideInAPackage("dev.knotless.spindle..")
                .should().dependOnClassesThat().resideInAPackage("dev.knotless.runner..")
                .check(production);
    }

    @Test
    void whomItServesIsReadWithoutTheProtocolOrRuns() {
        noClasses().that().resideInAPackage("dev.knotless.spindle.setup..")
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAnyPackage("dev.knotless.spindle",
                        "dev.knotless.spindle.knot..", "dev.knotless.runner..")
                        .or(JavaClass.Predicates.simpleNameStartingWith("RunFeed")
                                .and(JavaClass.Predicates.resideInAPackage("dev.knotless.forge")))
                        .or(JavaClass.Predicates.simpleNameStartingWith("FollowedRun")
                                .and(JavaClass.Predicates.resideInAPackage("dev.knotless.forge")))
                        .or(JavaClass.Predicates.simpleNameStartingWith("LiveEvent")
                                .and(JavaClass.Predicates.resideInAPackage("dev.knotless.forge")))
                        .or(JavaClass.Predicates.simpleNameStartingWith("PipelineRunNames")
                                .and(JavaClass.Predicates.resideInAPackage("dev.knotless.forge"))))
                .check(production);
    }
}
