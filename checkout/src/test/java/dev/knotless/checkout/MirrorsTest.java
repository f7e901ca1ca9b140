package dev.knotless.checkout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MirrorsTest {

    @TempDir
    Path temp;

    private TestRepo source;
    private Mirrors mirrors;
    private String first;
    private String second;

    @BeforeEach
    void makeRepository() throws Exception {
        source = new TestRepo(temp.resolve("src"));
        first = source.file("README.md", "one\n").commit("first");
        second = source.file("README.md", "two\n").commit("second");
        source.git("tag", "-a", "-m", "release", "v1.0", first);
        source.git("tag", "light", second);
        mirrors = new Mirrors(temp.resolve("state"));
    }

    @Test
    void aLocalRepositoryIsMirroredUnderTheStateDirectory() throws Exception {
        Mirror mirror = mirrors.mirrorFor(source.dir.toString());

        assertThat(mirror.path().getParent()).isEqualTo(temp.resolve("state/mirrors").toAbsolutePath());
        assertThat(mirror.path().getFileName().toString()).matches("src-[0-9a-f]{12}\\.git");
        assertThat(TestRepo.run(mirror.path(), "rev-parse", "--is-bare-repository")).isEqualTo("true");
        assertThat(mirror.repo()).isEqualTo(source.dir.toRealPath().toString());
        assertThat(Files.readString(mirror.path().resolve("info/attributes"))).isEqualTo(Mirrors.ATTRIBUTES);
        try (Stream<Path> left = Files.list(temp.resolve("state/mirrors"))) {
            assertThat(left.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(mirror.path().getFileName().toString(),
                            mirror.path().getFileName() + ".lock");
        }
    }

    @Test
    void aMirrorHoldingTheCommitIsUsedAsItIsAndOtherwiseFetched() throws Exception {
        String repo = source.dir.toString();
        mirrors.mirrorFor(repo);
        String third = source.file("README.md", "three\n").commit("third");

        Mirror asItIs = mirrors.mirrorHolding(repo, second);
        assertThat(asItIs.resolve(second).sha()).isEqualTo(second);
        assertThatThrownBy(() -> asItIs.resolve(third)).as("not fetched").isInstanceOf(CheckoutException.class);

        assertThat(mirrors.mirrorHolding(repo, third).resolve(third).sha()).isEqualTo(third);
        assertThatThrownBy(() -> mirrors.mirrorHolding(repo, "--upload-pack=x"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCommitReadOnceIsReadAgainWithoutGit() throws Exception {
        String repo = source.dir.toString();
        Mirror mirror = mirrors.mirrorFor(repo);
        Map<String, String> files = mirror.files(second, "");
        Path objects = mirror.path().resolve("objects");
        Path away = temp.resolve("objects-away");
        // Without its objects git can read nothing of the mirror, nor fetch into it.
        Files.move(objects, away);
        try {
            Mirror again = mirrors.mirrorHolding(repo, second);
            assertThat(again.files(second, "")).isEqualTo(files).containsEntry("README.md", "two\n");
            assertThat(again.tree(second)).isNotNull();
            assertThatThrownBy(() -> again.files(first, "")).as("never read").isInstanceOf(CheckoutException.class);
            assertThatThrownBy(() -> new Mirrors(temp.resolve("state")).mirrorHolding(repo, second))
                    .as("another instance keeps nothing").isInstanceOf(CheckoutException.class);
        } finally {
            Files.move(away, objects);
        }
    }

    @Test
    void aCommitNotFoundIsAskedOfGitAgainOnceFetched() throws Exception {
        String repo = source.dir.toString();
        Mirror mirror = mirrors.mirrorFor(repo);
        assertThat(mirror.files(second, "")).containsEntry("README.md", "two\n");
        String third = source.file("README.md", "three\n").commit("third");
        assertThatThrownBy(() -> mirror.files(third, "")).isInstanceOf(CheckoutException.class);
        assertThatThrownBy(() -> mirror.tree(third)).isInstanceOf(CheckoutException.class);

        mirrors.mirrorFor(repo);

        assertThat(mirror.files(third, "")).containsEntry("README.md", "three\n");
        assertThat(mirror.files(second, "")).containsEntry("README.md", "two\n");
        assertThat(mirrors.mirrorHolding(repo, third).tree(third)).isNotNull();
    }

    @Test
    void aMirrorMadeAnewForgetsWhatTheOldOneHeld() throws Exception {
        String repo = source.dir.toString();
        Mirror mirror = mirrors.mirrorFor(repo);
        String third = source.file("README.md", "three\n").commit("third");
        mirrors.mirrorFor(repo);
        assertThat(mirror.files(third, "")).containsEntry("README.md", "three\n");
        // The branch moves back and the mirror is removed: a new clone lacks the commit.
        source.git("reset", "--hard", second);
        source.git("reflog", "expire", "--expire=now", "--all");
        source.git("gc", "--prune=now", "--quiet");
        try (Stream<Path> walk = Files.walk(mirror.path())) {
            for (Path path : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }

        mirrors.mirrorFor(repo);

        assertThatThrownBy(() -> mirror.files(third, "")).isInstanceOf(CheckoutException.class);
    }

    @Test
    void resolveNamesBranchesAndTagsByTheirFullRefAndEverythingElseBySha() throws Exception {
        Mirror mirror = mirrors.mirrorFor(source.dir.toString());

        assertThat(mirror.resolve()).isEqualTo(new Commit(second, "refs/heads/main"));
        assertThat(mirror.resolve("HEAD")).isEqualTo(new Commit(second, "refs/heads/main"));
        assertThat(mirror.resolve(null)).isEqualTo(new Commit(second, "refs/heads/main"));
        assertThat(mirror.resolve("HEAD~1")).isEqualTo(new Commit(first, first));
        assertThat(mirror.resolve("main")).isEqualTo(new Commit(second, "refs/heads/main"));
        assertThat(mirror.resolve("refs/heads/main")).isEqualTo(new Commit(second, "refs/heads/main"));
        assertThat(mirror.resolve("v1.0")).isEqualTo(new Commit(first, "refs/tags/v1.0"));
        assertThat(mirror.resolve("light")).isEqualTo(new Commit(second, "refs/tags/light"));
        assertThat(mirror.resolve("main~1")).isEqualTo(new Commit(first, first));
        assertThat(mirror.resolve(first.substring(0, 10))).isEqualTo(new Commit(first, first));
        assertThat(mirror.resolve(first)).isEqualTo(new Commit(first, first));
        assertThat(mirror.resolve("main").isRef()).isTrue();
        assertThat(mirror.resolve(first).isRef()).isFalse();
    }

    @Test
    void theRefOfAUrlSourcesHeadIsItsDefaultBranchOnlyWhileItAgrees() throws Exception {
        String url = "file://" + source.dir;
        assertThat(mirrors.mirrorFor(url).resolve()).isEqualTo(new Commit(second, "refs/heads/main"));

        source.git("checkout", "-q", "--detach", first);
        assertThat(mirrors.mirrorFor(url).resolve()).isEqualTo(new Commit(first, first));
    }

    @Test
    void aBranchWinsOverATagOfTheSameName() throws Exception {
        source.git("tag", "main-or-tag", first);
        source.git("branch", "main-or-tag", second);
        Mirror mirror = mirrors.mirrorFor(source.dir.toString());

        assertThat(mirror.resolve("main-or-tag")).isEqualTo(new Commit(second, "refs/heads/main-or-tag"));
        assertThat(mirror.resolve("refs/tags/main-or-tag")).isEqualTo(new Commit(first, "refs/tags/main-or-tag"));
    }

    @Test
    void anUnknownRevisionIsAClearError() throws Exception {
        Mirror mirror = mirrors.mirrorFor(source.dir.toString());
        String repo = source.dir.toRealPath().toString();

        for (String bad : List.of("nope", "refs/heads/nope", "main~9", "0000000000000000000000000000000000000000",
                "--all", "main thing", "HEAD~5")) {
            assertThatThrownBy(() -> mirror.resolve(bad)).as(bad)
                    .isInstanceOf(CheckoutException.class)
                    .hasMessage("revision '" + bad + "' not found in " + repo);
        }
    }

    @Test
    void theHeadOfANonBareRepositoryIsFollowedWhenDetached() throws Exception {
        source.git("checkout", "-q", "--detach", first);
        String detached = source.file("other.txt", "x").commit("on a detached head");

        Mirror mirror = mirrors.mirrorFor(source.dir.toString());
        assertThat(mirror.resolve()).isEqualTo(new Commit(detached, detached));
        assertThat(mirror.resolve("main").sha()).isEqualTo(second);

        source.git("checkout", "-q", "main");
        assertThat(mirrors.mirrorFor(source.dir.toString()).resolve()).isEqualTo(new Commit(second, "refs/heads/main"));

        source.git("checkout", "-q", "-b", "feature", first);
        assertThat(mirrors.mirrorFor(source.dir.toString()).resolve()).isEqualTo(new Commit(first, "refs/heads/feature"));
    }

    @Test
    void aBareSourceRepositoryWorks() throws Exception {
        TestRepo bare = TestRepo.initBare(temp.resolve("bare.git"));
        source.git("push", "-q", bare.dir.toString(), "main");

        Mirror mirror = mirrors.mirrorFor(bare.dir.toString());

        assertThat(mirror.path().getFileName().toString()).matches("bare-[0-9a-f]{12}\\.git");
        assertThat(mirror.resolve()).isEqualTo(new Commit(second, "refs/heads/main"));
    }

    @Test
    void aFileUrlWorksAndGetsAMirrorOfItsOwn() throws Exception {
        Mirror byUrl = mirrors.mirrorFor("file://" + source.dir);
        Mirror byPath = mirrors.mirrorFor(source.dir.toString());

        assertThat(byUrl.resolve("main")).isEqualTo(new Commit(second, "refs/heads/main"));
        assertThat(byUrl.resolve()).isEqualTo(new Commit(second, "refs/heads/main"));
        assertThat(byUrl.path()).isNotEqualTo(byPath.path());
        assertThat(byUrl.repo()).isEqualTo("file://" + source.dir);
    }

    @Test
    void aSecondSyncFetchesOnlyWhatIsNew() throws Exception {
        Mirror mirror = mirrors.mirrorFor("file://" + source.dir);
        String before = objectCounts(mirror);

        mirrors.mirrorFor("file://" + source.dir);
        assertThat(objectCounts(mirror)).as("nothing new, nothing fetched").isEqualTo(before);

        String third = source.file("README.md", "three\n").commit("third");
        Mirror again = mirrors.mirrorFor("file://" + source.dir);

        assertThat(again.path()).isEqualTo(mirror.path());
        assertThat(again.resolve()).isEqualTo(new Commit(third, "refs/heads/main"));
        assertThat(again.resolve("main").sha()).isEqualTo(third);
        // A commit, its tree and one blob: three new objects, loose or in one new pack.
        assertThat(newObjects(before, objectCounts(mirror))).isEqualTo(3);
    }

    @Test
    void aSyncPrunesDeletedBranchesAndTagsAndFollowsForcePushes() throws Exception {
        source.git("branch", "feature", first);
        Mirror mirror = mirrors.mirrorFor(source.dir.toString());
        assertThat(mirror.resolve("feature").sha()).isEqualTo(first);

        source.git("branch", "-D", "feature");
        source.git("tag", "-d", "light");
        source.git("reset", "-q", "--hard", first);
        mirrors.mirrorFor(source.dir.toString());

        assertThatThrownBy(() -> mirror.resolve("feature")).hasMessageStartingWith("revision 'feature' not found");
        assertThatThrownBy(() -> mirror.resolve("light")).hasMessageStartingWith("revision 'light' not found");
        assertThat(mirror.resolve("main").sha()).isEqualTo(first);
        assertThat(mirror.resolve().sha()).isEqualTo(first);
        assertThat(mirror.resolve(second).sha()).as("objects stay after a force push").isEqualTo(second);
    }

    @Test
    void aMissingRepositoryPathIsAClearError() {
        Path missing = temp.resolve("gone");
        assertThatThrownBy(() -> mirrors.mirrorFor(missing.toString()))
                .isInstanceOf(CheckoutException.class)
                .hasMessage("repository path " + missing + " does not exist");
    }

    @Test
    void anUnreachableUrlFailsWithGitsWordsOnOneLineAndLeavesNothingBehind() throws Exception {
        String url = "file://" + temp.resolve("no-such-repo");
        assertThatThrownBy(() -> mirrors.mirrorFor(url))
                .isInstanceOf(CheckoutException.class)
                .hasMessageStartingWith("could not clone " + url + ": ")
                .hasMessageContaining("does not appear to be a git repository")
                .hasMessageNotContaining("\n");
        try (Stream<Path> left = Files.list(temp.resolve("state/mirrors"))) {
            assertThat(left.map(p -> p.getFileName().toString())).allMatch(name -> name.endsWith(".lock"));
        }
    }

    @Test
    void aSourceThatDisappearsAfterCloningFailsToFetch() throws Exception {
        Path moved = temp.resolve("moved");
        String url = "file://" + source.dir;
        mirrors.mirrorFor(url);
        Files.move(source.dir, moved);

        assertThatThrownBy(() -> mirrors.mirrorFor(url))
                .isInstanceOf(CheckoutException.class)
                .hasMessageStartingWith("could not fetch " + url + ": ");
    }

    @Test
    void anEmptyRepositoryMirrorsButResolvesNothing() throws Exception {
        TestRepo empty = new TestRepo(temp.resolve("empty"));

        Mirror mirror = mirrors.mirrorFor(empty.dir.toString());
        assertThatThrownBy(mirror::resolve).hasMessageStartingWith("revision 'HEAD' not found");

        String sha = empty.file("a", "a").commit("now there is one");
        assertThat(mirrors.mirrorFor(empty.dir.toString()).resolve().sha()).isEqualTo(sha);
    }

    @Test
    void concurrentSyncsOfOneRepositoryWaitForEachOther() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<Commit>> tasks = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Mirrors own = new Mirrors(temp.resolve("state"));
                tasks.add(() -> own.mirrorFor(source.dir.toString()).resolve());
            }
            for (Future<Commit> result : pool.invokeAll(tasks)) {
                assertThat(result.get()).isEqualTo(new Commit(second, "refs/heads/main"));
            }
        } finally {
            pool.shutdownNow();
        }
        try (Stream<Path> left = Files.list(temp.resolve("state/mirrors"))) {
            assertThat(left.count()).as("one mirror and its lock").isEqualTo(2);
        }
    }

    /** {@code git count-objects -v}: loose count and packs, the lines that change when objects arrive. */
    private static String objectCounts(Mirror mirror) throws Exception {
        String[] lines = TestRepo.run(mirror.path(), "count-objects", "-v").split("\n");
        return lines[0] + "," + lines[2] + "," + lines[3];
    }

    private static long newObjects(String before, String after) {
        long[] b = numbers(before);
        long[] a = numbers(after);
        return (a[0] - b[0]) + (a[1] - b[1]);
    }

    private static long[] numbers(String counts) {
        String[] parts = counts.split(",");
        return new long[] {
            Long.parseLong(parts[0].split(": ")[1]), Long.parseLong(parts[1].split(": ")[1]),
        };
    }
}
