package dev.knotless.plan.expression;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What an expression in one place of a workflow may name: the contexts ({@code github}, {@code
 * steps}, ...) and the functions the host answers ({@code hashFiles}, the status functions). The
 * built-in functions are always there. GitHub's workflow schema gives each field its own list,
 * and a name outside it fails the parse, not the run.
 *
 * @param contexts names as the host spells them; the expression may write them in any case
 * @param functions what the host answers, each with the arguments it takes
 */
public record Scope(List<String> contexts, List<HostFunction> functions) {

    public Scope {
        contexts = List.copyOf(contexts);
        functions = List.copyOf(functions);
        Set<String> seen = new HashSet<>();
        for (String name : contexts) {
            if (!Chars.isKeyword(name)) {
                throw new IllegalArgumentException("a context is named like a property, not " + Chars.quote(name));
            }
            if (!seen.add(Chars.fold(name))) {
                throw new IllegalArgumentException("context " + name + " is listed twice");
            }
        }
        Set<String> seenFunctions = new HashSet<>();
        for (HostFunction f : functions) {
            if (!seenFunctions.add(Chars.fold(f.name()))) {
                throw new IllegalArgumentException("function " + f.name() + " is listed twice");
            }
        }
    }

    public static Scope of(List<String> contexts, HostFunction... functions) {
        return new Scope(contexts, List.of(functions));
    }

    /** The context {@code name} (in any case) as declared, or null when it is not allowed here. */
    public @Nullable String context(String name) {
        String folded = Chars.fold(name);
        for (String c : contexts) {
            if (Chars.fold(c).equals(folded)) {
                return c;
            }
        }
        return null;
    }

    /** The host function {@code name} (in any case), or null when it is not allowed here. */
    public @Nullable HostFunction function(String name) {
        String folded = Chars.fold(name);
        for (HostFunction f : functions) {
            if (Chars.fold(f.name()).equals(folded)) {
                return f;
            }
        }
        return null;
    }

    /** For messages: the contexts, as declared. */
    String describeContexts() {
        return contexts.isEmpty() ? "none" : String.join(", ", contexts);
    }
}
