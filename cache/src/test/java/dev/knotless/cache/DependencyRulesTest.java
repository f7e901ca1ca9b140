package dev.knotless.cache;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** cache depends on executor-api, zstd-jni, Jackson and the JDK only (architecture.md). */
class DependencyRulesTest {

    private final JavaClasses production = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.knotless.cache");

    @Test
    void productionCodeDependsOnExecutorApiZstdJacksonAndTheJdkOnly() {
        classes().that().resideInAPackage("dev.knotless.cache..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(
                        "dev.knotless.cache..", "dev.knotless.executor..", "dev.knotless.tar..", "dev.knotless.files",
                        "com.github.luben.zstd..", "com.fasterxml.jackson..", "java..", "org.jspecify..")
                .check(production);
    }

    @Test
    void onlyTheDocumentedTypesArePublic() {
        classes().that().resideInAPackage("dev.knotless.cache").and().arePublic().and().areTopLevelClasses()
                .should().haveNameMatching("dev\\.knotless\\.cache\\."
                        + "(CacheStore|CacheKey|Layer|Upper|Entry|Promotion|PruneReport)")
                .check(production);
    }
}
