package dev.knotless.plan;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The plan sits below everything that carries it out, and its dialects beside each other
 * (plan/README.md). What is above the module (runner-core and the rest) is kept off by Maven and
 * by runner-cli's {@code ArchitectureTest}, which sees every module; these rules see this one.
 */
class PlanDependencyRulesTest {

    private static final String ROOT = "dev.knotless.plan";
    /** Packages below the types' that are not a dialect's: the YAML helpers, the list, the expressions. */
    private static final Set<String> NOT_DIALECTS = Set.of("yaml", "dialects", "expression");
    /**
     * GitHub Actions' expression language: a leaf that every part of the plan may use, the types
     * too (a step will hold its expressions), so it names nothing of the module itself.
     */
    private static final String EXPRESSIONS = ROOT + ".expression";
    /** The dialect others may build on: tangled's {@code engine: knotless} is our schema. */
    private static final String OURS = ROOT + ".knotless";

    static JavaClasses classes;

    @BeforeAll
    static void importProductionClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT);
    }

    /** The expressions have a stricter rule of their own, below, which also lets them use Jackson's JSON. */
    @Test
    void thePlanDependsOnlyOnTheSeamChecksAndItsLibraries() {
        classes().that().resideInAPackage(ROOT + "..").and().resideOutsideOfPackage(EXPRESSIONS + "..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(ROOT + "..", "dev.knotless.executor",
                        "dev.knotless.time", "dev.knotless.checks..", "java..", "org.yaml.snakeyaml..", "com.cronutils..",
                        "org.jspecify.annotations..")
                .check(classes);
    }

    /** The types may hold expressions, which are a leaf: that names no dialect nor the file reading. */
    @Test
    void thePlansTypesNameNoDialectNorHowFilesAreRead() {
        noClasses().that().resideInAPackage(ROOT)
                .should().dependOnClassesThat(JavaClass.Predicates.resideInAPackage(ROOT + ".*..")
                        .and(JavaClass.Predicates.resideOutsideOfPackage(EXPRESSIONS + "..")))
                .check(classes);
    }

    @Test
    void theExpressionsAreALeafOfTheJdkJspecifyAndJackson() {
        classes().that().resideInAPackage(EXPRESSIONS + "..")
                .should().onlyDependOnClassesThat().resideInAnyPackage(EXPRESSIONS + "..", "java..",
                        "org.jspecify.annotations..", "com.fasterxml.jackson..")
                .check(classes);
    }

    @Test
    void theYamlHelpersNameNoDialect() {
        noClasses().that().resideInAPackage(ROOT + ".yaml..")
                .should().dependOnClassesThat().resideInAnyPackage(dialectPackages().stream().map(p -> p + "..")
                        .toArray(String[]::new))
                .orShould().dependOnClassesThat().resideInAPackage(ROOT + ".dialects..")
                .check(classes);
    }

    @Test
    void theDialectsAreFound() {
        assertThat(dialectPackages()).contains(OURS, ROOT + ".tangled");
    }

    @Test
    void onlyTheListNamesEveryDialectAndADialectBuildsOnOursAtMost() {
        List<ArchRule> rules = new ArrayList<>();
        rules.add(noClasses().that().resideOutsideOfPackage(ROOT + ".dialects..")
                .should().dependOnClassesThat().resideInAPackage(ROOT + ".dialects..")
                .as("nothing in the module but the list names the list"));
        for (String dialect : dialectPackages()) {
            for (String other : dialectPackages()) {
                if (!other.equals(dialect) && !other.equals(OURS)) {
                    rules.add(noClasses().that().resideInAPackage(dialect + "..")
                            .should().dependOnClassesThat().resideInAPackage(other + "..")
                            .as(dialect + " names nothing of " + other));
                }
            }
        }
        CompositeArchRule.of(rules).check(classes);
    }

    /** Each dialect's package, as found: a dialect added later is held to the same rules. */
    private static Set<String> dialectPackages() {
        Set<String> found = new TreeSet<>();
        for (JavaClass c : classes) {
            String pkg = c.getPackageName();
            if (pkg.startsWith(ROOT + ".")) {
                String first = pkg.substring(ROOT.length() + 1).split("\\.")[0];
                if (!NOT_DIALECTS.contains(first)) {
                    found.add(ROOT + "." + first);
                }
            }
        }
        return found;
    }
}
