package dev.knotless.runner.run.step.evaluate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code hashFiles}' patterns, as {@code @actions/glob} matches them with the runner's options. */
class FilesGlobTest {

    static final List<String> FILES = List.of("pom.xml", "core/pom.xml", "core/src/A.java", "core/target/pom.xml",
            ".github/workflows/ci.yml", "web/package-lock.json", "web/node_modules/x/package-lock.json", "a[1].txt",
            "notes.md");

    private static List<String> matched(String... patterns) {
        FilesGlob glob = FilesGlob.of(List.of(patterns), "/github/workspace");
        return FILES.stream().filter(glob::matches).toList();
    }

    @Test
    void doubleStarCrossesDirectoriesAndStarStaysInOneName() {
        assertThat(matched("**/pom.xml")).containsExactly("pom.xml", "core/pom.xml", "core/target/pom.xml");
        assertThat(matched("*/pom.xml")).containsExactly("core/pom.xml");
        assertThat(matched("*.md")).containsExactly("notes.md");
        assertThat(matched("core/src/?.java")).containsExactly("core/src/A.java");
    }

    @Test
    void aDirectoryMatchesWhatIsUnderItAndDotNamesAreMatchedLikeOthers() {
        assertThat(matched("core")).containsExactly("core/pom.xml", "core/src/A.java", "core/target/pom.xml");
        assertThat(matched("**/*.yml")).containsExactly(".github/workflows/ci.yml");
        assertThat(matched("./web/")).containsExactly("web/package-lock.json", "web/node_modules/x/package-lock.json");
    }

    @Test
    void aNegationTakesBackWhatCameBeforeAndALaterPatternMayMatchAgain() {
        assertThat(matched("**/package-lock.json", "!**/node_modules/**")).containsExactly("web/package-lock.json");
        assertThat(matched("**/pom.xml\n!core/**\ncore/target/pom.xml")).containsExactly("pom.xml", "core/target/pom.xml");
        assertThat(matched("!pom.xml")).isEmpty();
    }

    @Test
    void linesCommentsAbsolutePathsAndClasses() {
        assertThat(matched("# a comment\n\n  notes.md  ")).containsExactly("notes.md");
        assertThat(matched("/github/workspace/core/src/*.java")).containsExactly("core/src/A.java");
        assertThat(matched("/elsewhere/**")).isEmpty();
        assertThat(matched("a\\[1].txt")).containsExactly("a[1].txt");
        assertThat(matched("core/src/[A-C].java", "core/src/[!A].java")).containsExactly("core/src/A.java");
        assertThat(FilesGlob.of(List.of("", "# only a comment"), "/w").any()).isFalse();
    }
}
