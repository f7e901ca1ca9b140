package dev.knotless.checkout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a mirror says two commits changed, for path filters; real git, a real repository. */
class MirrorChangesTest {

    @TempDir Path temp;

    @Test
    void changedPathsListsWhatDiffersARenameAsBothNamesAndARootCommitAsItsWholeTree() throws Exception {
        TestRepo source = new TestRepo(temp.resolve("src"))
                .file("src/App.java", "class App {}\n").file("docs/old name.md", "notes\n").file("README.md", "hi\n");
        String first = source.commit();
        Files.delete(source.dir.resolve("README.md"));
        source.git("mv", "docs/old name.md", "docs/new name.md");
        source.file("src/App.java", "class App { int x; }\n");
        String second = source.commit();
        Mirror mirror = new Mirrors(temp.resolve("state")).mirrorFor(source.dir.toString());

        assertThat(mirror.changedPaths(first, second, 10)).contains(
                List.of("README.md", "docs/new name.md", "docs/old name.md", "src/App.java"));
        assertThat(mirror.changedPaths(null, first, 10)).contains(List.of("README.md", "docs/old name.md", "src/App.java"));
        assertThat(mirror.changedPaths(second, second, 10)).contains(List.of());
        assertThat(mirror.changedPaths(first, second, 4)).isPresent();
        assertThat(mirror.changedPaths(first, second, 3)).as("more than the limit: not known").isEmpty();
        assertThat(mirror.firstParent(second)).contains(first);
        assertThat(mirror.firstParent(first)).as("a root commit").isEmpty();
    }

    @Test
    void mergeBaseIsWhereABranchLeftAnotherAndACommitTheMirrorLacksIsAClearError() throws Exception {
        TestRepo source = new TestRepo(temp.resolve("src")).file("a.txt", "1\n");
        String base = source.commit();
        source.git("checkout", "-q", "-b", "feature");
        String feature = source.file("b.txt", "2\n").commit();
        source.git("checkout", "-q", "main");
        String main = source.file("c.txt", "3\n").commit();
        Mirror mirror = new Mirrors(temp.resolve("state")).mirrorFor(source.dir.toString());

        assertThat(mirror.mergeBase(main, feature)).contains(base);
        assertThat(mirror.changedPaths(mirror.mergeBase(main, feature).orElseThrow(), feature, 10)).contains(List.of("b.txt"));
        String missing = "1".repeat(40);
        assertThat(mirror.mergeBase(main, missing)).isEqualTo(Optional.empty());
        assertThatThrownBy(() -> mirror.changedPaths(missing, main, 10)).isInstanceOf(CheckoutException.class)
                .hasMessageContaining("cannot compare " + missing + " with " + main);
    }
}
