package dev.knotless.checkout;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** Mirrors and checkouts know git, tar and the seam's transfer types, nothing of runs (README.md). */
class DependencyRulesTest {

    private final JavaClasses production = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.knotless.checkout");

    @Test
    void productionCodeDependsOnTheSeamsTransferTypesCaffeineAndTheJdkOnly() {
        classes().that().resideInAPackage("dev.knotless.checkout..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("dev.knotless.checkout..", "dev.knotless.executor",
                        "dev.knotless.tar..", "dev.knotless.time", "com.github.benmanes.caffeine..", "org.apache.commons.compress..", "org.slf4j..",
                        "org.jspecify..", "java..")
                .check(production);
    }
}
