package dev.knotless.cli;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
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

    /** The node's own packages: the agent, and the protocol and channel both sides share. */
    static final String NODE = "dev.knotless.node..";

    static JavaClasses classes;

    @BeforeAll
    static void importProductionClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.knotless");
    }

    @Test
    void theSeamDependsOnNothingOfOurs() {
        classes().that().resideInAnyPackage("dev.knotless.executor", "dev.knotless.tar", "dev.knotless.time", "dev.knotless.text",
                        "dev.knotless.files")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.executor", "dev.knotless.tar", "dev.knotless.time", "dev.knotless.text", "dev.knotless.files", "java..", "org.apache.commons.compress..", "org.slf4j..",
                        "org.jspecify.annotations..")
                .check(classes);
    }

    /**
     * The executor toolkit ({@code dev.knotless.executor.toolkit}: the detached step, the exec
     * opened ahead, warm pools, service readiness, the step stopper, block streams) is what
     * executors share below the seam. It may use the seam, never the reverse (the seam's own rule
     * above allows only its own packages), and nothing above the seam may use it: runner-core and
     * the libraries see an executor only through {@code Executor} and {@code Session}. The CLI, which
     * wires executors, may name its constants.
     */
    @Test
    void onlyExecutorsUseTheExecutorToolkit() {
        classes().that().resideInAPackage("dev.knotless.executor.toolkit..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.executor", "dev.knotless.executor.toolkit..", "dev.knotless.tar", "dev.knotless.time", "dev.knotless.text", "java..",
                        "org.apache.commons.compress..", "org.slf4j..",
                        "org.jspecify.annotations..")
                .check(classes);
        noClasses().that().resideOutsideOfPackages("dev.knotless.executor.toolkit..", "dev.knotless.executor.docker..",
                        "dev.knotless.executor.kubernetes..", "dev.knotless.executor.node..", NODE, "dev.knotless.cli..")
                .should().dependOnClassesThat().resideInAPackage("dev.knotless.executor.toolkit..")
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
        // Only the node executor speaks to nodes: the others name nothing of the node's protocol or agent.
        noClasses().that().resideInAnyPackage("dev.knotless.executor.docker..", "dev.knotless.executor.kubernetes..")
                .should().dependOnClassesThat().resideInAPackage(NODE)
                .check(classes);
    }

    /** The agent and the protocol it shares with the runner: held to what the node executor is held to. */
    @Test
    void theNodesOwnPackagesDependOnlyOnTheSeam() {
        noClasses().that().resideInAPackage(NODE)
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.runner..", "dev.knotless.checks..", "dev.knotless.secrets..",
                        "dev.knotless.cache..", "dev.knotless.checkout..", "dev.knotless.cli..", "dev.knotless.testkit..",
                        "dev.knotless.executor.docker..", "dev.knotless.executor.kubernetes..")
                .check(classes);
    }

    @Test
    void librariesDependOnlyOnTheSeam() {
        noClasses().that().resideInAnyPackage("dev.knotless.checks..", "dev.knotless.secrets..", "dev.knotless.cache..",
                        "dev.knotless.checkout..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.runner..", "dev.knotless.cli..", "dev.knotless.executor.docker..",
                        "dev.knotless.executor.kubernetes..", "dev.knotless.executor.node..", NODE, "dev.knotless.testkit..")
                .check(classes);
    }

    @Test
    void runnerCoreNeverNamesAnExecutorImplementation() {
        noClasses().that().resideInAnyPackage("dev.knotless.runner..", "dev.knotless.checkout..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.executor.docker..", "dev.knotless.executor.kubernetes..",
                        "dev.knotless.executor.node..", NODE, "dev.knotless.cli..", "dev.knotless.testkit..")
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
     * The forge seam (forge/README.md) is below runner-core, as the executor seam is below it: it
     * names nothing of the runs nor of anything above them, so a forge module needs only the seam.
     */
    @Test
    void theForgeSeamNamesNothingOfRunnerCoreNorAboveIt() {
        noClasses().that().resideInAPackage("dev.knotless.forge..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.knotless.runner..", "dev.knotless.atproto..",
                        "dev.knotless.spindle..", "dev.knotless.hosted..", "dev.knotless.http..", "dev.knotless.cli..",
                        "dev.knotless.executor.docker..",
                        "dev.knotless.executor.kubernetes..", "dev.knotless.executor.node..", NODE, "dev.knotless.testkit..")
                .check(classes);
    }

    /**
     * A forge sees the runner only through the seam: the ATProto forge, the spindle and the hosted
     * forges name nothing of runner-core, nor the hosted forges the daemon's HTTP server; what they
     * need of runs the CLI hands them as seam interfaces (ForgeWiring).
     */
    @Test
    void forgesNameNothingOfTheRunner() {
        noClasses().that().resideInAnyPackage("dev.knotless.atproto..", "dev.knotless.spindle..", "dev.knotless.hosted..")
                .should().dependOnClassesThat().resideInAPackage("dev.knotless.runner..")
                .check(classes);
        noClasses().that().resideInAPackage("dev.knotless.hosted..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.knotless.http..", "dev.knotless.cli..")
                .check(classes);
    }

    /**
     * Outside the plan module, code uses the plan's types ({@code dev.knotless.plan}), evaluates
     * the expressions a plan carries ({@code dev.knotless.plan.expression}: a language of values
     * that names no context; the trees that say what {@code github.sha} is are the plan's {@code
     * RunValue}s) and picks a dialect from their list ({@code dev.knotless.plan.dialects}); it never
     * names a dialect's own package, nor the YAML reading they share, so no run can depend on which
     * dialect it came from.
     */
    @Test
    void outsideThePlanNothingNamesADialect() {
        noClasses().that().resideOutsideOfPackage("dev.knotless.plan..")
                .should().dependOnClassesThat(resideInAPackage("dev.knotless.plan..")
                        .and(resideOutsideOfPackages("dev.knotless.plan", "dev.knotless.plan.expression",
                                "dev.knotless.plan.dialects"))
                        .as("reside in a dialect's package or in the plan's YAML reading"))
                .check(classes);
    }

    @Test
    void onlyTheCliWiresExecutors() {
        noClasses().that().resideOutsideOfPackage("dev.knotless.cli..")
                .and().resideOutsideOfPackages("dev.knotless.executor.docker..", "dev.knotless.executor.kubernetes..",
                        "dev.knotless.executor.node..", NODE)
                .should().dependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.executor.docker..", "dev.knotless.executor.kubernetes..", "dev.knotless.executor.node..", NODE)
                .check(classes);
    }

    /**
     * The node executor's two sides meet only in what they share (executor-node/README.md): the
     * runner's side names nothing of the node's packages but the protocol and the channel, and
     * those name neither side. A package the agent adds is the agent's, and so kept out at once.
     */
    @Test
    void theNodeRunnerSideNeverNamesTheAgentAndTheProtocolNamesNeitherSide() {
        String[] shared = {"dev.knotless.node.protocol..", "dev.knotless.node.channel.."};
        noClasses().that().resideInAPackage("dev.knotless.executor.node..")
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage(NODE)
                        .and(JavaClass.Predicates.resideOutsideOfPackages(shared)))
                .check(classes);
        noClasses().that().resideInAnyPackage(shared)
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.knotless.executor.node..")
                        .or(JavaClass.Predicates.resideInAPackage(NODE).and(JavaClass.Predicates.resideOutsideOfPackages(shared))))
                .check(classes);
        // Nor does the agent name the runner's side: it learns of runners only through the protocol.
        noClasses().that().resideInAPackage(NODE)
                .should().dependOnClassesThat().resideInAPackage("dev.knotless.executor.node..")
                .check(classes);
    }

    /**
     * The CLI reaches nodes through two classes: NodeWiring on the runner host (the executor, the
     * fleet, tokens, keys) and NodeAgentWiring on a node (the agent process, enrolment). Every other
     * command gets the CLI's own types from them, and each of the two keeps to its own side.
     */
    @Test
    void onlyTheTwoNodeWiringsOfTheCliNameNodeTypes() {
        noClasses().that().resideInAPackage("dev.knotless.cli..")
                .and(DescribedPredicate.not(JavaClass.Predicates.belongToAnyOf(NodeWiring.class, NodeAgentWiring.class)))
                .should().dependOnClassesThat().resideInAnyPackage("dev.knotless.executor.node..", NODE)
                .check(classes);
        String[] shared = {"dev.knotless.node.protocol..", "dev.knotless.node.channel.."};
        noClasses().that().belongToAnyOf(NodeWiring.class)
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage(NODE)
                        .and(JavaClass.Predicates.resideOutsideOfPackages(shared)))
                .check(classes);
        noClasses().that().belongToAnyOf(NodeAgentWiring.class)
                .should().dependOnClassesThat().resideInAPackage("dev.knotless.executor.node..")
                .check(classes);
    }

    private static String[] otherExecutors(String executor) {
        return java.util.Arrays.stream(new String[] {"docker", "kubernetes", "node"})
                .filter(e -> !e.equals(executor))
                .map(e -> "dev.knotless.executor." + e + "..")
                .toArray(String[]::new);
    }
}
