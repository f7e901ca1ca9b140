package dev.knotless.plan.dialects;

import dev.knotless.plan.Dialect;
import dev.knotless.plan.github.GithubDialect;
import dev.knotless.plan.knotless.KnotlessDialect;
import dev.knotless.plan.tangled.TangledDialect;
import java.util.List;

/**
 * The dialects this runner reads, in one list: the one place that names them. Everything above the
 * plan picks a dialect here, by name (a forge's event, a queued run) or as the standard one (a
 * repository's own files), and sees only {@link Dialect}. A new dialect is a package of its own
 * beside {@code knotless}, {@code github} and {@code tangled}, and one line here.
 */
public final class Dialects {

    private static final Dialect STANDARD = new KnotlessDialect();
    private static final Dialect TANGLED = new TangledDialect();
    private static final List<Dialect> ALL = List.of(STANDARD, new GithubDialect(), TANGLED);

    /**
     * Where a commit's own workflows were found: the dialect they are read in, and its directory.
     *
     * @param directory the one directory read, such as {@code .github/workflows}
     */
    public record Source(Dialect dialect, String directory) {}

    private Dialects() {}

    /** Every dialect, the standard one first. */
    public static List<Dialect> all() {
        return ALL;
    }

    /** What a repository's own workflow files are read as: ours, {@code .knotless/workflows}. */
    public static Dialect standard() {
        return STANDARD;
    }

    /**
     * The one rule of precedence, the same in {@code exec} and the daemon: the first directory that
     * {@code present} says a commit has, of ours ({@code .knotless/workflows}), then GitHub
     * Actions' in Forgejo's order ({@code .forgejo}, {@code .gitea}, {@code .github}), then
     * tangled's ({@code .tangled/workflows}) when {@code withTangled}; only that one is read. Empty
     * when the commit has none of them.
     *
     * @param withTangled false for the daemon, which leaves tangled's files to the spindle (it reads
     *     them from tangled's events)
     */
    public static java.util.Optional<Source> sourceOf(java.util.function.Predicate<String> present, boolean withTangled) {
        for (Dialect dialect : ALL) {
            if (dialect.equals(TANGLED) && !withTangled) {
                continue;
            }
            for (String directory : dialect.directories()) {
                if (present.test(directory)) {
                    return java.util.Optional.of(new Source(dialect, directory));
                }
            }
        }
        return java.util.Optional.empty();
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
