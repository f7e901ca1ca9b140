package dev.knotless.spindle.knot;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.knotless.atproto.forge.ReconnectDelay;
import dev.knotless.atproto.forge.StreamCursor;
import dev.knotless.atproto.forge.StreamFollower;
import dev.knotless.atproto.forge.StreamFrame;
import dev.knotless.atproto.forge.StreamPolicy;
import dev.knotless.atproto.forge.StreamState;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Following knots needs OkHttp, Jackson and forge-atproto's stream follower (with the backoff it
 * takes), the one WebSocket follower, which names nothing of the forge (forge-atproto's {@code
 * DependencyRulesTest}); nothing else of ours (README.md): the daemon wires it to runs, never the
 * other way round.
 */
class KnotDependencyRulesTest {

    private final JavaClasses production = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.knotless.spindle.knot");

    @Test
    void theKnotPackageUsesOnlyOkHttpJacksonAndTheStreamFollower() {
        Set<Class<?>> types = Set.of(StreamFollower.class, StreamFrame.class, StreamCursor.class, StreamPolicy.class, StreamState.class,
                ReconnectDelay.class);
        // The follower's types, those nested in them, and arrays of them (an enum's values()).
        DescribedPredicate<JavaClass> follower = DescribedPredicate.describe("forge-atproto's stream follower",
                c -> types.stream().anyMatch(t -> JavaClass.Predicates.belongTo(JavaClass.Predicates.equivalentTo(t)).test(c.getBaseComponentType())));
        classes().that().resideInAPackage("dev.knotless.spindle.knot..")
                .should().onlyDependOnClassesThat(JavaClass.Predicates.resideInAnyPackage(
                        "dev.knotless.spindle.knot..", "dev.knotless.text", "java..", "javax.net..", "okhttp3..", "okio..", "kotlin..",
                        "com.fasterxml.jackson..", "org.jspecify..")
                        .or(follower))
                .check(production);
    }
}
