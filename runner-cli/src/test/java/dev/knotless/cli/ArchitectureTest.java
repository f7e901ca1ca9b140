package dev.knotless.cli;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Dependencies point one way (docs/design/architecture.md): executors and libraries depend only
 * on the executor seam; runner-core never on an executor implementation; only the CLI wires them,
 * and the HTTP server (runner-http), which reads runner-core. The plan is below runner-core, and
 * what carries a plan out never knows which dialect it was written in.
 */
class ArchitectureTest {

    static JavaClasses classes;

    @BeforeAll
    static void importProductionClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.knotless");
    }

    @Test
    void theSeamDependsOnNothingOfOurs() {
        classes().that().resideInAnyPackage("dev.knotless.executor", "dev.knotless.tar", "dev.knotless.time")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.executor", "dev.knotless.tar", "dev.knotless.time", "java..", "org.apache.commons.compress..", "org.slf4j..",
                        "org.jspecify.annotations..")
                .check(classes);
    }

    @Test
    void executorsDependOnlyOnTheSeam() {
        for (String executor : new String[] {"docker", "kubernetes", "node"}) {
            noClasses().that().resideInAPackage("dev.knotless.executor." + executor + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(
                            "dev.knotless.runner..", "dev.knotless.checks..", "dev.knotless.secrets..",
                            "dev.knotless.cache..", "dev.knotless.checkout..", "dev.knotless.cli..", "dev.knotless.testkit..",
                            otherExecutors(executor)[0], otherExecutors(executor)[1])
                    .allowEmptyShould(true)
                    .check(classes);
        }
    }

    @Test
    void librariesDependOnlyOnTheSeam() {
        noClasses().that().resideInAnyPackage("dev.knotless.checks..", "dev.knotless.secrets..", "dev.knotless.cache..",
                        "dev.knotless.checkout..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.runner..", "dev.knotless.cli..", "dev.knotless.executor.docker..",
                        "dev.knotless.executor.kubernetes..", "dev.knotless.executor.node..", "dev.knotless.testkit..")
                .check(classes);
    }

    @Test
    void runnerCoreNeverNamesAnExecutorImplementation() {
        noClasses().that().resideInAnyPackage("dev.knotless.runner..", "dev.knotless.checkout..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.executor.docker..", "dev.knotless.executor.kubernetes..",
                        "dev.knotless.executor.node..", "dev.knotless.cli..", "dev.knotless.testkit..")
                .check(classes);
    }

    @Test
    void theHttpServerReadsTheCoreAndOnlyTheCliWiresIt() {
        noClasses().that().resideInAPackage("dev.knotless.http..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.knotless.cli..", "dev.knotless.testkit..")
                .check(classes);
        noClasses().that().resideOutsideOfPackages("dev.knotless.http..", "dev.knotless.cli..")
                .should().dependOnClassesThat().resideInAPackage("dev.knotless.http..")
                .check(classes);
    }

    /** The plan (plan/README.md) is below runner-core: it names nothing of the runs, nor of what is above them. */
    @Test
    void thePlanNamesNothingOfRunnerCoreNorAboveIt() {
        noClasses().that().resideInAPackage("dev.knotless.plan..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.knotless.runner..", "dev.knotless.atproto..",
                        "dev.knotless.spindle..", "dev.knotless.http..", "dev.knotless.cli..")
                .check(classes);
    }

    /**
     * Outside the plan module, code uses the plan's types ({@code dev.knotless.plan}) and picks a
     * dialect from their list ({@code dev.knotless.plan.dialects}); it never names a dialect's own
     * package, nor the YAML reading they share, so no run can depend on which dialect it came from.
     */
    @Test
    void outsideThePlanNothingNamesADialect() {
        noClasses().that().resideOutsideOfPackage("dev.knotless.plan..")
                .should().dependOnClassesThat(resideInAPackage("dev.knotless.plan..")
                        .and(resideOutsideOfPackages("dev.knotless.plan", "dev.knotless.plan.dialects"))
                        .as("reside in a dialect's package or in the plan's YAML reading"))
                .check(classes);
    }

    @Test
    void onlyTheCliWiresExecutors() {
        noClasses().that().resideOutsideOfPackage("dev.knotless.cli..")
                .and().resideOutsideOfPackages("dev.knotless.executor.docker..", "dev.knotless.executor.kubernetes..",
                        "dev.knotless.executor.node..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.executor.docker..", "dev.knotless.executor.kubernetes..", "dev.knotless.executor.node..")
                .check(classes);
    }

    /** The node executor's two sides meet only in what they share (executor-node/README.md). */
    @Test
    void theNodeRunnerSideNeverNamesTheAgentAndTheProtocolNamesNeitherSide() {
        String node = "dev.knotless.executor.node.";
        String[] agentSide = java.util.Arrays.stream(new String[] {"agent", "allocation", "runc", "cni", "image", "host", "service"})
                .map(p -> node + p + "..").toArray(String[]::new);
        noClasses().that().resideInAPackage(node + "runner..")
                .should().dependOnClassesThat().resideInAnyPackage(agentSide)
                .check(classes);
        String[] eitherSide = java.util.stream.Stream.concat(java.util.Arrays.stream(agentSide), java.util.stream.Stream.of(node + "runner.."))
                .toArray(String[]::new);
        noClasses().that().resideInAnyPackage(node + "protocol..", node + "channel..")
                .should().dependOnClassesThat().resideInAnyPackage(eitherSide)
                .check(classes);
    }

    private static String[] otherExecutors(String executor) {
        return java.util.Arrays.stream(new String[] {"docker", "kubernetes", "node"})
                .filter(e -> !e.equals(executor))
                .map(e -> "dev.knotless.executor." + e + "..")
                .toArray(String[]::new);
    }
}
