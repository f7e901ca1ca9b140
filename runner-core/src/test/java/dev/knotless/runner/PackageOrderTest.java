package dev.knotless.runner;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
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
import java.util.stream.Collectors;
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
 *
 * <p>Inside {@code run}, its parts depend one way too ({@link #RUN_PARTS}): the run package itself
 * lists the phases and may use every part, and no part uses it.
 */
class PackageOrderTest {

    /** Highest first: a package may use the packages after it, never one before it. */
    static final List<String> ORDER = List.of("daemon", "lander", "state", "run", "forge");

    /**
     * The parts of a run, each with the parts it may use. The phases (the steps, the environment,
     * what moves in and out, what is left to read) use what a phase is, the log and the request;
     * only the steps write the journal; the log and the check know only the request.
     */
    static final List<Part> RUN_PARTS = List.of(
            new Part("step", "phase", "recovery", "record", "request"),
            new Part("environment", "phase", "record", "request"),
            new Part("transfer", "phase", "record", "request"),
            new Part("output", "phase", "record", "request"),
            new Part("runtime", "phase", "record", "request"),
            new Part("phase", "record", "request"),
            new Part("recovery", "record", "request"),
            new Part("record", "request"),
            new Part("request"));

    /** A part of the run ({@code run.<name>}) and the parts it may use. */
    record Part(String name, List<String> uses) {
        Part(String name, String... uses) {
            this(name, List.of(uses));
        }
    }

    static final String RUN = "dev.knotless.runner.run";

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

    /** Each part of the run against the parts it may not use, and the run package itself. */
    static ArchRule runPartsOrder() {
        List<ArchRule> rules = new ArrayList<>();
        for (Part part : RUN_PARTS) {
            List<String> others = new ArrayList<>(List.of(RUN));
            RUN_PARTS.stream().map(Part::name).filter(p -> !p.equals(part.name()) && !part.uses().contains(p))
                    .map(p -> RUN + "." + p + "..").forEach(others::add);
            rules.add(noClasses().that().resideInAPackage(RUN + "." + part.name() + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(others.toArray(String[]::new))
                    .as("run." + part.name() + " uses " + (part.uses().isEmpty() ? "no other part of the run"
                            : "only " + part.uses())));
        }
        return CompositeArchRule.of(rules);
    }

    @Test
    void packagesDependOnlyOnThePackagesBelowThem() {
        packageOrder().check(classes);
    }

    @Test
    void thePartsOfARunDependOnlyOnThePartsBelowThem() {
        runPartsOrder().check(classes);
    }

    @Test
    void thePartsOfARunHaveNoCycles() {
        slices().matching(RUN + ".(*)..").should().beFreeOfCycles().check(classes);
    }

    /** A part the order does not name would escape it. */
    @Test
    void everyPartOfARunIsInTheOrder() {
        Set<String> parts = classes.stream().map(JavaClass::getPackageName).filter(p -> p.startsWith(RUN + "."))
                .map(p -> p.substring(RUN.length() + 1).split("\\.")[0]).collect(Collectors.toSet());
        assertThat(parts).containsExactlyInAnyOrderElementsOf(RUN_PARTS.stream().map(Part::name).toList());
    }

    private static String pkg(String name) {
        return "dev.knotless.runner." + name + "..";
    }
}
