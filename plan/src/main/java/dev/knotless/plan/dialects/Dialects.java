package dev.knotless.plan.dialects;

import dev.knotless.plan.Dialect;
import dev.knotless.plan.knotless.KnotlessDialect;
import dev.knotless.plan.tangled.TangledDialect;
import java.util.List;

/**
 * The dialects this runner reads, in one list: the one place that names them. Everything above the
 * plan picks a dialect here, by name (a forge's event, a queued run) or as the standard one (a
 * repository's own files), and sees only {@link Dialect}. A new dialect is a package of its own
 * beside {@code knotless} and {@code tangled}, and one line here.
 */
public final class Dialects {

    private static final Dialect STANDARD = new KnotlessDialect();
    private static final List<Dialect> ALL = List.of(STANDARD, new TangledDialect());

    private Dialects() {}

    /** Every dialect, the standard one first. */
    public static List<Dialect> all() {
        return ALL;
    }

    /** What a repository's own workflow files are read as: ours, {@code .knotless/workflows}. */
    public static Dialect standard() {
        return STANDARD;
    }

    /** @throws IllegalArgumentException naming the dialects there are */
    public static Dialect named(String name) {
        for (Dialect d : ALL) {
            if (d.name().equals(name)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown workflow dialect '" + name + "' ("
                + String.join(" or ", ALL.stream().map(Dialect::name).toList()) + ")");
    }
}
