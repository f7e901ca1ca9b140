package dev.knotless.secrets;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** secrets depends on executor-api, Jackson and the JDK only (architecture.md). */
class DependencyRulesTest {

    private final JavaClasses production = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.knotless.secrets");

    @Test
    void productionCodeDependsOnExecutorApiJacksonAndTheJdkOnly() {
        classes().that().resideInAPackage("dev.knotless.secrets..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.secrets..", "dev.knotless.executor..", "dev.knotless.files",
                        "com.fasterxml.jackson..", "java..", "javax.crypto..", "org.jspecify..")
                .check(production);
    }

    @Test
    void onlyTheDocumentedTypesArePublic() {
        classes().that().resideInAPackage("dev.knotless.secrets").and().arePublic().and().areTopLevelClasses()
                .should().haveNameMatching("dev\\.knotless\\.secrets\\."
                        + "(Secret|SecretStore|SecretStoreException|Grants|Masker|MaskingSink)")
                .check(production);
    }
}
