package dev.knotless.cli;

import dev.knotless.forge.Cursors;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.StateStore;
import dev.knotless.testkit.TestRepo;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A repository the daemon watches, as a forge holds it: a bare repository recorded in the embedded
 * forge of a state directory, and a working clone that pushes to it. Pushing many branches in one
 * {@code git push} makes many events appear in one poll, as a busy forge would.
 */
final class Upstream {

    final String name;
    final TestRepo work;
    final Path bare;

    private Upstream(String name, TestRepo work, Path bare) {
        this.name = name;
        this.work = work;
        this.bare = bare;
    }

    /** Makes {@code work} with {@code workflows} (file → YAML) on main, its bare clone, and the record. */
    static Upstream create(Path dir, String name, Map<String, String> workflows, Path state, String runnerId)
            throws IOException, InterruptedException {
        TestRepo work = new TestRepo(dir.resolve("work"));
        workflows.forEach((file, yaml) -> {
            try {
                work.workflow(file, yaml);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        work.commit();
        Path bare = dir.resolve("upstream.git");
        work.git("clone", "-q", "--bare", work.dir.toString(), bare.toString());
        new EmbeddedForge(state.resolve("forge"), Cursors.inMemory())
                .add(new Repository(name, bare.toString(), "main", List.of(runnerId), List.of()));
        return new Upstream(name, work, bare);
    }

    /** Commits once on each of {@code count} new branches {@code prefix-N} (not pushed); branch → commit. */
    Map<String, String> branches(String prefix, int count) throws IOException, InterruptedException {
        Map<String, String> made = new LinkedHashMap<>();
        for (int i = 1; i <= count; i++) {
            String branch = prefix + "-" + i;
            work.git("checkout", "-q", "-b", branch, "main");
            made.put(branch, work.file("branch.txt", branch).commit());
        }
        work.git("checkout", "-q", "main");
        return made;
    }

    /** One commit on main (not pushed). */
    String commitOnMain(String content) throws IOException, InterruptedException {
        return work.file("main.txt", content).commit();
    }

    /** Pushes these branches to the bare repository in one {@code git push}. */
    void push(List<String> branches) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("push", "-q", bare.toString()));
        args.addAll(branches);
        work.git(args.toArray(String[]::new));
    }

    /** True once the daemon's first poll of this repository (the baseline) is recorded. */
    boolean baselined(Path state) {
        try (StateStore store = StateStore.open(state)) {
            return store.cursors().get(name).containsKey("@baseline");
        } catch (IOException e) {
            return false; // the daemon may hold the database at this moment; asked again
        }
    }
}
