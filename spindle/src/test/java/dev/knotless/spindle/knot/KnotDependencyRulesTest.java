package dev.knotless.spindle.knot;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.knotless.atproto.forge.ReconnectDelay;
import org.junit.jupiter.api.Test;

/**
 * Following knots needs OkHttp, Jackson and the backoff of forge-atproto's firehose, and nothing
 * else of ours (README.md): the daemon wires it to runs, never the other way round.
 */
class KnotDependencyRulesTest {

    private final JavaClasses production = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.knotless.spindle.knot");

    @Test
    void theKnotPackageUsesOnlyOkHttpJacksonAndTheReconnectDelay() {
        classes().that().resideInAPackage("dev.knotless.spindle.knot..")
                .should().onlyDependOnClassesThat(JavaClass.Predicates.resideInAnyPackage(
                        "dev.knotless.spindle.knot..", "dev.knotless.text", "java..", "javax.net..", "okhttp3..", "okio..", "kotlin..",
                        "com.fasterxml.jackson..", "org.jspecify..")
                        .or(JavaClass.Predicates.equivalentTo(ReconnectDelay.class)))
                .check(production);
    }
}
