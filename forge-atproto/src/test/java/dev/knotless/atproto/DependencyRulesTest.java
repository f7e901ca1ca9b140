package dev.knotless.atproto;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.knotless.forge.CheckPublisher;
import org.junit.jupiter.api.Test;

/**
 * forge-atproto uses the check model, the publisher seam and the monotonic clock, and nothing
 * else of ours (README.md): the daemon wires it, never the other way round. The XRPC client uses
 * nothing of ours but the one-line form of a message everything shares ({@code dev.knotless.text}).
 */
class DependencyRulesTest {

    private final JavaClasses production = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.knotless.atproto");

    @Test
    void thePublisherUsesOnlyChecksThePublisherSeamAndTheClock() {
        classes().that().resideInAPackage("dev.knotless.atproto..").and().resideOutsideOfPackage("dev.knotless.atproto.forge..")
                .should().onlyDependOnClassesThat(JavaClass.Predicates.resideInAnyPackage(
                        "dev.knotless.atproto..", "dev.knotless.checks", "dev.knotless.time",
                        "dev.knotless.text", "java..", "okhttp3..", "okio..", "com.fasterxml.jackson..", "org.jspecify..",
                        "org.bouncycastle..")
                        .or(JavaClass.Predicates.equivalentTo(CheckPublisher.class)))
                .check(production);
    }

    /**
     * The forge is the one part that speaks the forge seam (repositories, events, the merge queue)
     * and builds on the embedded forge; it follows the firehose over OkHttp's WebSocket, whose
     * frames it bounds on the wire with a socket factory of its own ({@code javax.net}).
     */
    @Test
    void theForgeAddsOnlyTheDaemonsForgeSeam() {
        classes().that().resideInAPackage("dev.knotless.atproto.forge..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("dev.knotless.atproto..", "dev.knotless.forge", "dev.knotless.forge.embedded",
                        "dev.knotless.text", "java..", "javax.net..", "okhttp3..", "okio..", "kotlin..", "com.fasterxml.jackson..", "org.jspecify..")
                .check(production);
    }

    /**
     * The stream follower is every WebSocket follower's, the spindle's knots' too: it names nothing
     * of the forge seam nor of the rest of the forge package, only its own parts, so what follows
     * a knot through it names nothing of runs either.
     */
    @Test
    void theStreamFollowerNamesNothingOfTheForge() {
        // Its classes are named Stream… (with those nested in them, and arrays of them), and the socket bound and backoff it takes.
        DescribedPredicate<JavaClass> ofTheFollower = DescribedPredicate.describe("the stream follower's", c -> c.getBaseComponentType()
                .getName().matches("dev\\.knotless\\.atproto\\.forge\\.(Stream\\w*|BoundedSockets|ReconnectDelay)(\\$.*)?"));
        classes().that(ofTheFollower)
                .should().onlyDependOnClassesThat(ofTheFollower.or(JavaClass.Predicates.resideInAnyPackage(
                        "dev.knotless.text", "java..", "javax.net..", "okhttp3..", "okio..", "kotlin..", "org.jspecify..")))
                .check(production);
    }

    @Test
    void verifyingARecordKnowsNothingOfChecksOrRunners() {
        // The proof and identity code reads any record of any repository: checks are one use of it.
        classes().that().resideInAnyPackage("dev.knotless.atproto.repo..", "dev.knotless.atproto.identity..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("dev.knotless.atproto.repo..",
                        "dev.knotless.atproto.identity..", "dev.knotless.text", "java..", "okhttp3..", "okio..", "com.fasterxml.jackson..",
                        "org.jspecify..", "org.bouncycastle..")
                .check(production);
        // Who signed is a question of its own; the proof code asks it, never the other way round.
        noClasses().that().resideInAPackage("dev.knotless.atproto.identity..")
                .should().dependOnClassesThat().resideInAPackage("dev.knotless.atproto.repo..")
                .check(production);
    }

    /**
     * Checking who calls a service is a question of identity alone: the DID document's key and the
     * token's JSON. It needs no client of ours, no proofs and no checks.
     */
    @Test
    void serviceAuthUsesOnlyIdentity() {
        classes().that().resideInAPackage("dev.knotless.atproto.auth..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("dev.knotless.atproto.auth..",
                        "dev.knotless.atproto.identity..", "dev.knotless.text", "java..", "com.fasterxml.jackson..", "org.jspecify..")
                .check(production);
    }

    @Test
    void theClientKnowsNothingOfChecksOrRunners() {
        classes().that().resideInAPackage("dev.knotless.atproto.xrpc..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.atproto.xrpc..", "dev.knotless.text", "java..", "okhttp3..", "okio..", "com.fasterxml.jackson..", "org.jspecify..")
                .check(production);
    }

    /** Nothing of forge-atproto names the runner: the seam module is all it sees of it. */
    @Test
    void nothingNamesTheRunner() {
        noClasses().that().resideInAPackage("dev.knotless.atproto..")
                .should().dependOnClassesThat().resideInAPackage("dev.knotless.runner..")
                .check(production);
    }
}
