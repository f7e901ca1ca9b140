package dev.knotless.checkout;

import dev.knotless.executor.TarSource;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One repository's bare mirror, as of its last sync by {@link Mirrors#mirrorFor}: resolves
 * revisions and reads commits. Reads only; safe from any thread and while another process fetches
 * into the mirror.
 */
public final class Mirror {

    /** The most {@link #files(String, String)} reads of one file. */
    public static final int MAX_FILE_BYTES = 1 << 20;

    static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");

    private final Source source;
    private final Path path;
    private final CommitCache commits;

    Mirror(Source source, Path path, CommitCache commits) {
        this.source = source;
        this.path = path;
        this.commits = commits;
    }

    /** The repository as named in messages: its real path, or its URL without credentials. */
    public String repo() {
        return source.display();
    }

    Source source() {
        return source;
    }

    /** The bare repository on disk. */
    public Path path() {
        return path;
    }

    /**
     * The commit a revision names.
     *
     * <p>{@code HEAD} (also {@code HEAD~1}, {@code HEAD^2}, ...) means the source's HEAD at the last
     * sync, whether it named a branch or was detached. The ref of {@code HEAD} is the branch it
     * named when that is known and still agrees (always known for a local source; for a URL, the
     * default branch the clone saw), else the sha.
     *
     * <p>A branch or tag name, short ({@code main}, {@code v1.0}) or full ({@code refs/heads/main}),
     * gives its full ref name in {@link Commit#ref()}; a branch wins over a tag of the same name.
     * Anything else git can read as a commit (a full or abbreviated sha, {@code main~2}) gives the
     * sha as the ref.
     *
     * @throws CheckoutException "revision 'x' not found in REPO" when it names no commit
     */
    public Commit resolve(String rev) throws IOException {
        String revision = rev == null || rev.isBlank() ? "HEAD" : rev.strip();
        if (revision.startsWith("-") || revision.chars().anyMatch(c -> c <= ' ' || c == 0x7f)) {
            throw notFound(revision);
        }
        if (revision.equals("HEAD") || revision.startsWith("HEAD~") || revision.startsWith("HEAD^")) {
            String sha = peel(Mirrors.SOURCE_HEAD + revision.substring("HEAD".length()));
            if (sha == null) {
                throw notFound(revision);
            }
            return new Commit(sha, revision.equals("HEAD") ? headBranch(sha) : sha);
        }
        if (isRefName(revision)) {
            List<String> candidates = revision.startsWith("refs/")
                    ? List.of(revision)
                    : List.of("refs/heads/" + revision, "refs/tags/" + revision);
            for (String candidate : candidates) {
                if (Git.run(path, Git.LOCAL_TIMEOUT, List.of("show-ref", "--verify", "--quiet", candidate)).ok()) {
                    String sha = peel(candidate);
                    if (sha == null) {
                        throw new CheckoutException("revision '" + revision + "' in " + repo() + " is not a commit");
                    }
                    return new Commit(sha, candidate);
                }
            }
        }
        String sha = peel(revision);
        if (sha == null) {
            throw notFound(revision);
        }
        return new Commit(sha, sha);
    }

    /** The source's HEAD at the last sync. */
    public Commit resolve() throws IOException {
        return resolve("HEAD");
    }

    /**
     * The text of the regular files directly in {@code dir} of a commit (not in its
     * subdirectories; symlinks and submodules left out), keyed by path from the repository root,
     * such as {@code .knotless/workflows/ci.yaml}, in path order. A missing directory gives an
     * empty map.
     *
     * @param dir a directory of the tree, such as {@code .knotless/workflows}; empty for the root
     * @throws CheckoutException when the commit is not in the mirror, or a file is larger than
     *     {@link #MAX_FILE_BYTES} or not UTF-8
     */
    public Map<String, String> files(String sha, String dir) throws IOException {
        FileTexts read = texts(sha, dir);
        for (Map.Entry<String, String> refused : read.refused().entrySet()) {
            throw new CheckoutException(refused.getKey() + " in " + repo() + " at " + sha + " " + refused.getValue());
        }
        return read.texts();
    }

    /**
     * As {@link #files}, except that a file over {@link #MAX_FILE_BYTES} or not UTF-8 is not read
     * and is named with the reason in {@link FileTexts#refused()}, and the others are read: its
     * size is asked of git first, so no such file is ever held in memory.
     *
     * @throws CheckoutException when the commit is not in the mirror, or its commit or the
     *     directory's tree object is over {@link CatFileBatch#MAX_OBJECT_BYTES}
     */
    public FileTexts texts(String sha, String dir) throws IOException {
        requireSha(sha);
        String prefix = dir.replaceAll("^/+|/+$", "");
        if (prefix.chars().anyMatch(c -> c == '\n' || c == 0)) {
            throw new IllegalArgumentException("not a directory name: '" + dir + "'");
        }
        Optional<Map<String, String>> known = commits.files(path, sha, prefix);
        if (known.isPresent()) {
            return new FileTexts(known.get(), Map.of());
        }
        FileTexts files = readFiles(sha, prefix);
        if (files.refused().isEmpty()) {
            commits.putFiles(path, sha, prefix, files.texts());
        }
        return files;
    }

    /**
     * Reads the commit, the directory's tree and its files through one {@code git cat-file
     * --batch-command} (git 2.36), one request and answer at a time, each object's size before its
     * content; keeps the commit object for {@link #tree}.
     */
    private FileTexts readFiles(String sha, String prefix) throws IOException {
        try (CatFileBatch batch = CatFileBatch.start(path, repo())) {
            Optional<byte[]> commit;
            try {
                commit = batch.object(sha + "^{commit}", "commit", "commit " + sha);
            } catch (CheckoutException e) {
                throw e;
            } catch (IOException e) {
                commit = Optional.empty(); // git could not read the mirror at all
            }
            if (commit.isEmpty()) {
                throw commitNotFound(sha);
            }
            commits.putCommit(path, sha, commit.get());
            // A missing directory, or a file, symlink or submodule where it should be, holds no files.
            Optional<byte[]> tree = batch.object(prefix.isEmpty() ? sha + "^{tree}" : sha + ":" + prefix,
                    "tree", "the tree of " + (prefix.isEmpty() ? "the root" : prefix) + " at " + sha);
            if (tree.isEmpty()) {
                return new FileTexts(Map.of(), Map.of());
            }
            Map<String, String> objects = new LinkedHashMap<>();
            for (TreeEntry entry : TreeEntry.parse(tree.get(), sha.length() / 2)) {
                if (entry.regularFile()) {
                    objects.put(prefix.isEmpty() ? entry.name() : prefix + "/" + entry.name(), entry.id());
                }
            }
            // Each file's size is asked before its content ("info", then "contents"), so a file over
            // the cap is named and never read, and the files after it still are.
            Map<String, String> refused = new LinkedHashMap<>();
            Map<String, byte[]> contents = new LinkedHashMap<>();
            for (Map.Entry<String, String> object : objects.entrySet()) {
                long size = batch.blobSize(object.getValue(), object.getKey(), sha);
                if (size > MAX_FILE_BYTES) {
                    refused.put(object.getKey(), "is " + size + " bytes; files read from "
                            + (prefix.isEmpty() ? "the root" : prefix) + " are limited to " + MAX_FILE_BYTES + " bytes");
                } else {
                    contents.put(object.getKey(), batch.content(object.getValue(), size));
                }
            }
            Map<String, String> texts = new LinkedHashMap<>();
            for (Map.Entry<String, byte[]> content : contents.entrySet()) {
                Optional<String> text = utf8(content.getValue());
                if (text.isPresent()) {
                    texts.put(content.getKey(), text.get());
                } else {
                    refused.put(content.getKey(), "is not UTF-8 text");
                }
            }
            return new FileTexts(new TreeMap<>(texts), new TreeMap<>(refused));
        }
    }

    /** The text, or empty when it is not UTF-8. */
    private static Optional<String> utf8(byte[] content) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(content))
                    .toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /**
     * A commit's tree as a tar stream, made by {@code git archive} and copied entry by entry (no
     * temporary file): owners root, modes, symlinks and empty directories kept, submodules as empty
     * directories, any {@code .git} path of the tree left out. A minimal {@code .git} follows, so
     * that {@code git rev-parse HEAD}, {@code git log -1} and {@code git describe --always} work in
     * the run: a detached {@code HEAD}, the commit object itself, and a {@code shallow} file that
     * stops git looking for its parents. Commands that need the tree or an index ({@code git
     * status}, {@code git diff}) do not work. The caller bounds the size with {@code
     * Bounded.output}.
     *
     * @throws CheckoutException now, when the commit is not in the mirror
     */
    public TarSource tree(String sha) throws IOException {
        return tree(sha, false);
    }

    /**
     * As {@link #tree(String)}; with {@code history}, the {@code .git} holds the commit's whole
     * history instead of the commit alone: a pack of every object it reaches and the tags in it
     * (as {@code actions/checkout} gives with {@code fetch-depth: 0}), so {@code git log}, {@code
     * git describe --tags} and {@code git merge-base} work in the run. The pack is made by git as
     * the tar is written.
     *
     * @throws CheckoutException now, when the commit is not in the mirror
     */
    public TarSource tree(String sha, boolean history) throws IOException {
        requireSha(sha);
        Optional<byte[]> known = commits.commitObject(path, sha);
        if (known.isPresent()) {
            return new CommitTree(path, sha, known.get(), history);
        }
        Git.Result commit = Git.run(path, Git.LOCAL_TIMEOUT, List.of("cat-file", "commit", sha));
        if (!commit.ok()) {
            throw commitNotFound(sha);
        }
        commits.putCommit(path, sha, commit.stdout());
        return new CommitTree(path, sha, commit.stdout(), history);
    }

    /**
     * The paths whose content differs between the trees of commit {@code from} and commit {@code
     * to} ({@code git diff --name-only --no-renames}: a renamed file is its old path and its new
     * one), from the repository's root, in git's order; with no {@code from}, every file of {@code
     * to}'s tree. Empty when there are more than {@code limit}.
     *
     * @throws CheckoutException when either commit is not in the mirror
     */
    public Optional<List<String>> changedPaths(@Nullable String from, String to, int limit) throws IOException {
        requireSha(to);
        if (from != null) {
            requireSha(from);
        }
        List<String> args = from == null
                ? List.of("ls-tree", "-r", "-z", "--name-only", "--full-tree", to)
                : List.of("diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", from, to);
        Git.Result result;
        try {
            result = Git.run(path, Git.LOCAL_TIMEOUT, args);
        } catch (CheckoutException e) {
            return Optional.empty(); // more output than git may print here: far more than the limit
        }
        if (!result.ok()) {
            throw new CheckoutException("cannot compare " + (from == null ? "" : from + " with ") + to + " in " + repo()
                    + ": " + result.stderr().strip());
        }
        List<String> paths = new ArrayList<>();
        for (String entry : new String(result.stdout(), StandardCharsets.UTF_8).split("\0")) {
            if (!entry.isEmpty()) {
                if (paths.size() == limit) {
                    return Optional.empty();
                }
                paths.add(entry);
            }
        }
        return Optional.of(List.copyOf(paths));
    }

    /** The best common ancestor of commits {@code a} and {@code b}; empty when they have none in the mirror. */
    public Optional<String> mergeBase(String a, String b) throws IOException {
        requireSha(a);
        requireSha(b);
        Git.Result result = Git.run(path, Git.LOCAL_TIMEOUT, List.of("merge-base", a, b));
        return result.ok() && SHA.matcher(result.text()).matches() ? Optional.of(result.text()) : Optional.empty();
    }

    /** The first parent of commit {@code sha}; empty for a root commit. */
    public Optional<String> firstParent(String sha) throws IOException {
        requireSha(sha);
        return Optional.ofNullable(peel(sha + "^1"));
    }

    /** The branch the source's HEAD named at the last sync, if it is still at {@code sha}; else {@code sha}. */
    private String headBranch(String sha) throws IOException {
        Git.Result branch = Git.run(path, Git.LOCAL_TIMEOUT, List.of("symbolic-ref", "--quiet", "HEAD"));
        if (branch.ok() && branch.text().startsWith("refs/heads/") && sha.equals(peel(branch.text()))) {
            return branch.text();
        }
        return sha;
    }

    /** The commit's sha, or null when {@code revision} names none. */
    private String peel(String revision) throws IOException {
        Git.Result result = Git.run(path, Git.LOCAL_TIMEOUT,
                List.of("rev-parse", "--verify", "--quiet", "--end-of-options", revision + "^{commit}"));
        return result.ok() && SHA.matcher(result.text()).matches() ? result.text() : null;
    }

    /** Git's ref-name rules, enough to tell a name from an expression such as {@code main~1}. */
    static boolean isRefName(String s) {
        if (s.isEmpty() || s.startsWith("/") || s.endsWith("/") || s.endsWith(".") || s.endsWith(".lock")
                || s.contains("..") || s.contains("@{") || s.contains("//") || s.equals("@")) {
            return false;
        }
        for (String part : s.split("/")) {
            if (part.startsWith(".")) {
                return false;
            }
        }
        return s.chars().noneMatch(c -> c <= ' ' || c == 0x7f || "~^:?*[\\".indexOf(c) >= 0);
    }

    private void requireSha(String sha) {
        if (sha == null || !SHA.matcher(sha).matches()) {
            throw new IllegalArgumentException("not a full commit sha: '" + sha + "'");
        }
    }

    private CheckoutException notFound(String revision) {
        return new CheckoutException("revision '" + revision + "' not found in " + repo());
    }

    private CheckoutException commitNotFound(String sha) {
        return new CheckoutException("commit " + sha + " not found in " + repo());
    }

    @Override
    public String toString() {
        return "Mirror[" + repo() + " at " + path + "]";
    }
}
