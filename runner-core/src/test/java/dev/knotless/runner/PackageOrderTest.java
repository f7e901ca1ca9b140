package dev.knotless.runner;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages of runner-core depend one way (README.md): each only on those after it in
 * {@link #ORDER}, and the root package ({@code SideBySide}) on none of them. The daemon composes
 * everything; the lander needs the state and the run's check recorder; the state store keeps runs'
 * journals and check rows; a run publishes through the forge seam's {@code CheckPublisher}; the
 * poller knows no runs at all. The forge seam (module {@code forge}), Git mirrors and the checkout ({@code checkout}) and the plan a run carries
 * out ({@code plan}: workflows, read from their dialects) are modules below this one, so Maven
 * keeps them from naming any of it.
 */
class PackageOrderTest {

    /** Highest first: a package may use the packages after it, never one before it. */
    static final List<String> ORDER = List.of("daemon", "lander", "state", "run", "forge");

    static JavaClasses classes;

    @BeforeAll
    static void importProductionClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.knotless.runner");
    }

    /** The rule, as one: each package of {@link #ORDER} against the ones before it, and the root against all. */
    static ArchRule packageOrder() {
        List<ArchRule> rules = new ArrayList<>();
        for (int i = 1; i < ORDER.size(); i++) {
            rules.add(noClasses().that().resideInAPackage(pkg(ORDER.get(i)))
                    .should().dependOnClassesThat().resideInAnyPackage(
                            ORDER.subList(0, i).stream().map(PackageOrderTest::pkg).toArray(String[]::new))
                    .as(ORDER.get(i) + " depends on none of " + ORDER.subList(0, i)));
        }
        rules.add(noClasses().that().resideInAPackage("dev.knotless.runner")
                .should().dependOnClassesThat().resideInAnyPackage(ORDER.stream().map(PackageOrderTest::pkg).toArray(String[]::new))
                .as("the root package depends on none of " + ORDER));
        return CompositeArchRule.of(rules);
    }

    @Test
    void packagesDependOnlyOnThePackagesBelowThem() {
        packageOrder().check(classes);
    }

    private static String pkg(String name) {
        return "dev.knotless.runner." + name + "..";
    }
}
