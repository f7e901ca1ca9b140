package dev.knotless.checkout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.TarSource;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.tar.Bounded;
import dev.knotless.tar.TarExtractor;
import dev.knotless.testkit.TestRepo;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a mirror reads out of a commit: workflow files and the whole tree as a tar. */
class MirrorContentTest {

    private static final String LONG_NAME = "deep/" + "very-long-directory-name/".repeat(6) + "file-with-a-long-name.txt";

    @TempDir
    Path temp;

    private TestRepo source;
    private Mirror mirror;
    private String sha;

    @BeforeEach
    void makeRepository() throws Exception {
        source = new TestRepo(temp.resolve("src"))
                .file(".knotless/workflows/ci.yaml", "steps:\n  - run: make\n")
                .file(".knotless/workflows/lint.yml", "steps: [{run: lint}] # ünïcødé\n")
                .file(".knotless/workflows/README.md", "notes\n")
                .file(".knotless/workflows/nested/ignored.yaml", "steps: []\n")
                .symlink(".knotless/workflows/link.yaml", "ci.yaml")
                .executable("scripts/build.sh", "#!/bin/sh\necho built\n")
                .file("src/main/App.java", "class App {}\n")
                .file("ünïcødé/日本語 名前.txt", "こんにちは\n")
                .file(LONG_NAME, "long\n")
                .symlink("docs/latest", "../src/main")
                .file(".gitattributes", "secret.txt export-ignore\nversion.txt export-subst\n")
                .file("secret.txt", "kept\n")
                .file("version.txt", "$Format:%H$\n");
        sha = source.commit("everything");
        mirror = new Mirrors(temp.resolve("state")).mirrorFor(source.dir.toString());
    }

    @Test
    void filesReadsTheRegularFilesDirectlyInADirectory() throws Exception {
        Map<String, String> files = mirror.files(sha, ".knotless/workflows");

        assertThat(files).containsExactly(
                Map.entry(".knotless/workflows/README.md", "notes\n"),
                Map.entry(".knotless/workflows/ci.yaml", "steps:\n  - run: make\n"),
                Map.entry(".knotless/workflows/lint.yml", "steps: [{run: lint}] # ünïcødé\n"));
        assertThat(mirror.files(sha, "/.knotless/workflows/")).isEqualTo(files);
    }

    @Test
    void filesOfAMissingDirectoryIsEmpty() throws Exception {
        assertThat(mirror.files(sha, ".knotless/nothing-here")).isEmpty();
        assertThat(mirror.files(sha, "secret.txt")).isEmpty();
    }

    @Test
    void filesOfTheRootDirectory() throws Exception {
        assertThat(mirror.files(sha, "")).containsOnlyKeys(".gitattributes", "secret.txt", "version.txt");
    }

    @Test
    void filesRefusesAFileThatIsNotUtf8OrTooLarge() throws Exception {
        source.file("bad/latin1.yaml", new byte[] {'a', ':', ' ', (byte) 0xe9, '\n'});
        source.file("big/huge.yaml", "#".repeat(Mirror.MAX_FILE_BYTES + 1));
        String next = source.commit("bad files");
        Mirror synced = new Mirrors(temp.resolve("state")).mirrorFor(source.dir.toString());

        assertThatThrownBy(() -> synced.files(next, "bad"))
                .isInstanceOf(CheckoutException.class)
                .hasMessage("bad/latin1.yaml in " + synced.repo() + " at " + next + " is not UTF-8 text");
        assertThatThrownBy(() -> synced.files(next, "big"))
                .isInstanceOf(CheckoutException.class)
                .hasMessageContaining("big/huge.yaml")
                .hasMessageContaining("is " + (Mirror.MAX_FILE_BYTES + 1) + " bytes");
    }

    @Test
    void textsNamesEachFileItWillNotReadAndReadsTheOthers() throws Exception {
        source.file(".knotless/workflows/latin1.yaml", new byte[] {'a', ':', ' ', (byte) 0xe9, '\n'});
        source.file(".knotless/workflows/huge.yaml", "#".repeat(Mirror.MAX_FILE_BYTES + 1));
        String next = source.commit("bad files beside good ones");
        Mirror synced = new Mirrors(temp.resolve("state")).mirrorFor(source.dir.toString());

        FileTexts read = synced.texts(next, ".knotless/workflows");
        assertThat(read.texts()).containsOnlyKeys(".knotless/workflows/README.md", ".knotless/workflows/ci.yaml",
                ".knotless/workflows/lint.yml");
        assertThat(read.refused()).containsExactly(
                Map.entry(".knotless/workflows/huge.yaml", "is " + (Mirror.MAX_FILE_BYTES + 1)
                        + " bytes; files read from .knotless/workflows are limited to " + Mirror.MAX_FILE_BYTES + " bytes"),
                Map.entry(".knotless/workflows/latin1.yaml", "is not UTF-8 text"));
        assertThat(synced.texts(next, ".knotless/workflows")).as("read again, not from the cache").isEqualTo(read);
    }

    @Test
    void filesAndTreeOfAnUnknownCommitAreClearErrors() {
        String unknown = "1234567890123456789012345678901234567890";
        assertThatThrownBy(() -> mirror.files(unknown, ".knotless/workflows"))
                .isInstanceOf(CheckoutException.class)
                .hasMessage("commit " + unknown + " not found in " + mirror.repo());
        assertThatThrownBy(() -> mirror.tree(unknown))
                .isInstanceOf(CheckoutException.class)
                .hasMessage("commit " + unknown + " not found in " + mirror.repo());
        assertThatThrownBy(() -> mirror.tree("main")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void treeRoundTripsContentModesSymlinksAndNames() throws Exception {
        Path out = extract(mirror.tree(sha));

        assertThat(Files.readString(out.resolve("src/main/App.java"))).isEqualTo("class App {}\n");
        assertThat(Files.readString(out.resolve("ünïcødé/日本語 名前.txt"))).isEqualTo("こんにちは\n");
        assertThat(Files.readString(out.resolve(LONG_NAME))).isEqualTo("long\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("scripts/build.sh"))))
                .isEqualTo("rwxr-xr-x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out.resolve("src/main/App.java"))))
                .isEqualTo("rw-r--r--");
        assertThat(Files.isSymbolicLink(out.resolve("docs/latest"))).isTrue();
        assertThat(Files.readSymbolicLink(out.resolve("docs/latest"))).isEqualTo(Path.of("../src/main"));
        assertThat(Files.readSymbolicLink(out.resolve(".knotless/workflows/link.yaml"))).isEqualTo(Path.of("ci.yaml"));
        assertThat(Files.isDirectory(out.resolve(".knotless/workflows/nested"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    }

    @Test
    void aTreeWithHistoryHoldsEveryCommitBeforeItAndTheTagsInItButNotLaterOnes() throws Exception {
        source.git("tag", "v1.0", sha);
        source.git("tag", "-a", "v1.1", "-m", "annotated", sha);
        source.file("second.txt", "two\n");
        String second = source.commit("second");
        source.file("third.txt", "three\n");
        String third = source.commit("third");
        source.git("tag", "v2.0", third); // after the commit checked out: not in its history
        mirror = new Mirrors(temp.resolve("state")).mirrorFor(source.dir.toString());

        Path out = extract(mirror.tree(second, true));

        assertThat(TestRepo.run(out, "rev-parse", "HEAD").strip()).isEqualTo(second);
        assertThat(TestRepo.run(out, "log", "--format=%s").lines()).containsExactly("second", "everything");
        assertThat(TestRepo.run(out, "describe", "--tags").strip()).startsWith("v1.1-1-g");
        assertThat(TestRepo.run(out, "tag", "--list").lines()).containsExactly("v1.0", "v1.1");
        assertThat(TestRepo.run(out, "cat-file", "-t", "v1.1").strip()).isEqualTo("tag");
        assertThat(TestRepo.run(out, "fsck", "--no-dangling")).doesNotContain("missing");
        assertThat(out.resolve(".git/shallow")).doesNotExist();
        // without history: the commit alone, shallow, as before
        Path alone = extract(mirror.tree(second));
        assertThat(TestRepo.run(alone, "log", "--format=%s").lines()).containsExactly("second");
        assertThat(TestRepo.run(alone, "tag", "--list")).isBlank();
    }

    @Test
    void treeIgnoresExportAttributes() throws Exception {
        Path out = extract(mirror.tree(sha));

        assertThat(Files.readString(out.resolve("secret.txt"))).isEqualTo("kept\n");
        assertThat(Files.readString(out.resolve("version.txt"))).isEqualTo("$Format:%H$\n");
    }

    @Test
    void treeEntriesAreOwnedByRootAndCarryNoGlobalHeader() throws Exception {
        List<TarArchiveEntry> entries = entries(mirror.tree(sha));

        assertThat(entries).isNotEmpty().allSatisfy(entry -> {
            assertThat(entry.getLongUserId()).isZero();
            assertThat(entry.getLongGroupId()).isZero();
        });
        assertThat(entries).extracting(TarArchiveEntry::getName)
                .doesNotContain("pax_global_header")
                .contains("scripts/build.sh", "docs/latest", ".git/HEAD", ".git/objects/", ".git/refs/");
    }

    @Test
    void theSameCommitGivesTheSameBytes() throws Exception {
        assertThat(bytes(mirror.tree(sha))).isEqualTo(bytes(mirror.tree(sha)));
    }

    @Test
    void aTreeFromTheCommitKeptByFilesIsTheSameArchive() throws Exception {
        byte[] fresh = bytes(new Mirrors(temp.resolve("state")).mirrorFor(source.dir.toString()).tree(sha));
        mirror.files(sha, ".knotless/workflows"); // keeps the commit object

        assertThat(bytes(mirror.tree(sha))).isEqualTo(fresh);
    }

    @Test
    void gitInTheCheckoutKnowsItsCommit() throws Exception {
        Path out = extract(mirror.tree(sha));

        assertThat(TestRepo.run(out, "rev-parse", "HEAD")).isEqualTo(sha);
        assertThat(TestRepo.run(out, "log", "-1", "--format=%H %s")).isEqualTo(sha + " everything");
        assertThat(TestRepo.run(out, "describe", "--always", "--abbrev=12")).isEqualTo(sha.substring(0, 12));
        assertThat(TestRepo.run(out, "rev-parse", "--show-toplevel")).isEqualTo(out.toRealPath().toString());
    }

    @Test
    void aTreeHoldingAGitDirectoryIsRefused() throws Exception {
        // Git refuses to commit such paths; a crafted repository can still hold them.
        Files.writeString(temp.resolve("hook"), "#!/bin/sh\necho owned\n");
        String hook = source.git("hash-object", "-w", temp.resolve("hook").toString());
        String hooks = mktree("100755 blob " + hook + "\tpost-checkout\n");
        String dotGit = mktree("040000 tree " + hooks + "\thooks\n");
        String root = mktree(source.git("ls-tree", sha + "^{tree}") + "\n040000 tree " + dotGit + "\t.GIT\n");
        String commit = source.git("commit-tree", root, "-m", "crafted");
        source.git("branch", "crafted", commit);
        Mirror synced = new Mirrors(temp.resolve("state")).mirrorFor(source.dir.toString());
        TarSource tree = synced.tree(commit);

        assertThatThrownBy(() -> tree.writeTo(new ByteArrayOutputStream()))
                .isInstanceOf(java.io.IOException.class)
                .hasMessage("git archive failed: invalid path '.GIT/hooks/post-checkout'");
    }

    @Test
    void gitPathsAreRecognisedInAnySegmentAndCase() {
        assertThat(CommitTree.isGitPath(".git/config")).isTrue();
        assertThat(CommitTree.isGitPath("sub/.Git/hooks/x")).isTrue();
        assertThat(CommitTree.isGitPath("a/.GIT")).isTrue();
        assertThat(CommitTree.isGitPath(".github/workflows/x")).isFalse();
        assertThat(CommitTree.isGitPath("x.git/y")).isFalse();
        assertThat(CommitTree.isGitPath(".gitignore")).isFalse();
    }

    @Test
    void aTarLargerThanTheCallersBoundFailsAndStopsGit() throws Exception {
        // Far more than a pipe holds: git is still writing when the bound is hit, and would stay
        // blocked on its full pipe for as long as nobody stopped it.
        String big = java.util.HexFormat.of().formatHex(randomBytes(512 * 1024));
        source.file("big.txt", big);
        String bigSha = source.commit("big");
        Mirror synced = new Mirrors(temp.resolve("state")).mirrorFor(source.dir.toString());
        TarSource tree = synced.tree(bigSha);

        assertThatThrownBy(() -> tree.writeTo(Bounded.output(OutputStream.nullOutputStream(), 1024, null, "checkout")))
                .isInstanceOf(TransferLimitException.class)
                .hasMessage("checkout is larger than its limit of 1 KiB");
        awaitNoGitArchiveOf(bigSha);
    }

    private static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        new java.util.Random().nextBytes(bytes);
        return bytes;
    }

    /** Waits (30 s, a hang-catcher) until no {@code git archive} of {@code sha} runs under this JVM. */
    private static void awaitNoGitArchiveOf(String sha) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(30);
        List<String> left;
        while (!(left = gitArchivesOf(sha)).isEmpty()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("git archive of " + sha + " still running 30 s after the write failed: " + left);
            }
            Thread.sleep(50);
        }
    }

    private static List<String> gitArchivesOf(String sha) {
        return ProcessHandle.current().descendants()
                .filter(ProcessHandle::isAlive)
                .map(p -> p.pid() + " " + p.info().commandLine().orElse(""))
                .filter(line -> line.contains("archive") && line.contains(sha))
                .toList();
    }

    @Test
    void aFailingGitArchiveFailsTheWriteWithGitsMessage() throws Exception {
        TarSource tree = mirror.tree(sha);
        // Break the mirror after the commit was found: the blob of App.java goes missing.
        String blob = source.git("rev-parse", sha + ":src/main/App.java");
        Path object = mirror.path().resolve("objects").resolve(blob.substring(0, 2)).resolve(blob.substring(2));
        assertThat(object).exists();
        Files.delete(object);

        assertThatThrownBy(() -> tree.writeTo(new ByteArrayOutputStream()))
                .isInstanceOf(java.io.IOException.class)
                .hasMessageStartingWith("git archive failed: ")
                .hasMessageContaining(blob);
    }

    private Path extract(TarSource tree) throws Exception {
        Path out = Files.createTempDirectory(temp, "checkout-");
        TarExtractor.into(out, 1 << 30).readFrom(new ByteArrayInputStream(bytes(tree)));
        return out;
    }

    private static byte[] bytes(TarSource tree) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        tree.writeTo(out);
        return out.toByteArray();
    }

    private static List<TarArchiveEntry> entries(TarSource tree) throws Exception {
        List<TarArchiveEntry> entries = new ArrayList<>();
        try (TarArchiveInputStream in = new TarArchiveInputStream(
                new ByteArrayInputStream(bytes(tree)), StandardCharsets.UTF_8.name())) {
            TarArchiveEntry entry;
            while ((entry = in.getNextEntry()) != null) {
                entries.add(entry);
            }
        }
        return entries;
    }

    /** {@code git mktree} of a listing in ls-tree format; returns the tree's sha. */
    private String mktree(String listing) throws Exception {
        Path input = Files.createTempFile(temp, "tree-", ".txt");
        Files.writeString(input, listing);
        Process process = new ProcessBuilder("git", "mktree")
                .directory(source.dir.toFile())
                .redirectInput(input.toFile())
                .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).as(err).isZero();
        return out;
    }
}
