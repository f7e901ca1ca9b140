package dev.knotless.checkout;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;

/**
 * The host's bare mirrors of the repositories it runs, under {@code <stateDir>/mirrors}, one per
 * source: {@code <name>-<12 hex digits of sha256(source)>.git}.
 *
 * <p>{@link #mirrorFor} brings a mirror up to date before returning it: the first time by {@code
 * git clone --mirror} into a temporary directory renamed into place (so a half-made mirror is never
 * seen), afterwards by a {@code git fetch --prune} of branches, tags and the source's {@code HEAD},
 * which transfers only what is new.
 *
 * <h2>Concurrency</h2>
 * One sync per mirror at a time, across threads (a lock per mirror path, shared by every instance
 * in the JVM) and across processes ({@code FileChannel.lock} on {@code <mirror>.lock}). Reading a
 * {@link Mirror} takes no lock: git updates refs atomically and never removes an object a fetch
 * made unreachable before {@code gc.pruneExpire} (two weeks by default) has passed.
 */
public final class Mirrors {

    /** Standard-library file locks are per JVM, not per thread: this orders the threads. */
    private static final ConcurrentHashMap<Path, ReentrantLock> LOCKS = new ConcurrentHashMap<>();

    /**
     * What {@code git archive} must not do to a checkout: leave out {@code export-ignore} paths or
     * rewrite {@code export-subst} files. {@code info/attributes} outranks a tree's own attributes.
     */
    static final String ATTRIBUTES = "* -export-ignore -export-subst\n";

    /** Where a fetch keeps the source's HEAD: a mirror's own HEAD is only the clone's. */
    static final String SOURCE_HEAD = "refs/knotless/source-head";

    private final Path mirrorsDir;
    private final Duration fetchTimeout;
    /** Shared by the mirrors this instance hands out: the planner's reads serve the run's. */
    private final CommitCache commits = new CommitCache();

    /** Mirrors under {@code stateDir}; clone and fetch may take up to 30 minutes. */
    public Mirrors(Path stateDir) {
        this(stateDir, Duration.ofMinutes(30));
    }

    public Mirrors(Path stateDir, Duration fetchTimeout) {
        this.mirrorsDir = stateDir.resolve("mirrors").toAbsolutePath().normalize();
        this.fetchTimeout = Objects.requireNonNull(fetchTimeout, "fetchTimeout");
    }

    /**
     * The mirror of {@code repo}, up to date with it.
     *
     * @param repo a path to a local repository (bare or not), or a URL: {@code https://}, {@code
     *     ssh://}, {@code file://} or {@code user@host:path}
     * @throws CheckoutException naming the repository when it cannot be read or git fails
     */
    /**
     * The name a repository goes by in checks, secrets and caches: the canonical path or URL, with
     * no credential. {@code exec ./repo} and {@code secrets set --repo ./repo} agree on it.
     */
    public static String repoName(String repo) throws CheckoutException {
        return Source.of(repo).display();
    }

    public Mirror mirrorFor(String repo) throws IOException {
        return mirrorFor(repo, List.of());
    }

    /**
     * The mirror of {@code repo} as it is, when it already holds {@code commit}; otherwise {@link
     * #mirrorFor(String)}, which fetches. For a queued run: its commit was fetched when the run
     * was planned, and a fetch before its first step costs tens to hundreds of milliseconds.
     * Reading a mirror needs no lock (see the class comment).
     *
     * @param commit a full hexadecimal commit id
     */
    public Mirror mirrorHolding(String repo, String commit) throws IOException {
        if (!commit.matches("[0-9a-f]{40}|[0-9a-f]{64}")) {
            throw new IllegalArgumentException("not a full commit id: " + commit);
        }
        Source source = Source.of(repo);
        Path mirror = mirrorsDir.resolve(source.mirrorName());
        if (Files.isDirectory(mirror) && (commits.commitObject(mirror, commit).isPresent()
                || Git.run(mirror, fetchTimeout, List.of("cat-file", "-e", commit + "^{commit}")).ok())) {
            return new Mirror(source, mirror, commits);
        }
        return mirrorFor(repo);
    }

    /**
     * The mirror of {@code repo}, up to date with it, holding also {@code extraRefs} as the source
     * has them now, under the same names. Branch and tag fetches leave those refs alone ({@code
     * --prune} only prunes what a refspec names), so a pull request's head stays readable after a
     * later sync.
     *
     * @param extraRefs full ref names outside branches and tags, such as {@code refs/pulls/3/head}
     * @throws CheckoutException naming the repository and ref when one cannot be fetched
     */
    @SuppressWarnings("try") // the file lock is held by the try, never referenced
    public Mirror mirrorFor(String repo, List<String> extraRefs) throws IOException {
        for (String ref : extraRefs) {
            if (!ref.startsWith("refs/") || ref.startsWith("refs/heads/") || ref.startsWith("refs/tags/")
                    || !Mirror.isRefName(ref)) {
                throw new IllegalArgumentException("not an extra ref name: " + ref);
            }
        }
        Source source = Source.of(repo);
        Files.createDirectories(mirrorsDir);
        Path mirror = mirrorsDir.resolve(source.mirrorName());
        ReentrantLock threadLock = LOCKS.computeIfAbsent(mirror, path -> new ReentrantLock());
        try {
            threadLock.lockInterruptibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the mirror of " + source.display());
        }
        try (FileChannel channel = FileChannel.open(lockFile(mirror), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock ignored = channel.lock()) {
            if (Files.isDirectory(mirror)) {
                fetch(source, mirror);
            } else {
                cloneInto(source, mirror);
            }
            if (!extraRefs.isEmpty()) {
                List<String> refspecs = extraRefs.stream().map(ref -> "+" + ref + ":" + ref).toList();
                List<String> args = new ArrayList<>(List.of("-c", "gc.autoDetach=false", "fetch", "--quiet",
                        "--no-write-fetch-head", "--", source.remote().url()));
                args.addAll(refspecs);
                Git.Result fetch = Git.run(mirror, fetchTimeout, args, source.remote());
                if (!fetch.ok()) {
                    throw failure("could not fetch " + String.join(", ", extraRefs) + " of", source, fetch);
                }
            }
        } finally {
            threadLock.unlock();
        }
        return new Mirror(source, mirror, commits);
    }

    /** {@code git clone --mirror} into a temporary directory, then an atomic rename. */
    private void cloneInto(Source source, Path mirror) throws IOException {
        removeStaleClones(mirror);
        Path temp = Files.createTempDirectory(mirrorsDir, mirror.getFileName() + ".clone-");
        try {
            Path target = temp.resolve("mirror.git");
            Git.Result clone = Git.run(mirrorsDir, fetchTimeout,
                    List.of("clone", "--mirror", "--quiet", "--", source.remote().url(), target.toString()), source.remote());
            if (!clone.ok()) {
                throw failure("could not clone", source, clone);
            }
            // Keep no credential at rest: every fetch is given the location again.
            git(target, source, "config", "remote.origin.url", source.canonical());
            // The clone's HEAD is the source's; an empty source, or one whose HEAD names a missing
            // branch, has none, and then only named revisions resolve.
            Git.Result head = Git.run(target, Git.LOCAL_TIMEOUT,
                    List.of("rev-parse", "--verify", "--quiet", "HEAD^{commit}"));
            if (head.ok()) {
                git(target, source, "update-ref", SOURCE_HEAD, head.text());
            }
            followLocalHead(source, target);
            writeAttributes(target);
            Files.move(target, mirror, StandardCopyOption.ATOMIC_MOVE);
            commits.forget(mirror); // a mirror removed and made anew may lack what the old one held
        } finally {
            deleteRecursively(temp);
        }
    }

    /** Fetches branches, tags and HEAD, pruning what the source deleted. */
    private void fetch(Source source, Path mirror) throws IOException {
        List<String> refspecs = new ArrayList<>(List.of(
                "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", "+HEAD:" + SOURCE_HEAD));
        Git.Result fetch = Git.run(mirror, fetchTimeout, fetchArgs(source, refspecs), source.remote());
        if (!fetch.ok() && fetch.stderr().contains("couldn't find remote ref HEAD")) {
            // The source has no HEAD commit now: fetch the rest, and forget the old HEAD.
            refspecs.removeLast();
            fetch = Git.run(mirror, fetchTimeout, fetchArgs(source, refspecs), source.remote());
            if (fetch.ok()) {
                git(mirror, source, "update-ref", "-d", SOURCE_HEAD);
            }
        }
        if (!fetch.ok()) {
            throw failure("could not fetch", source, fetch);
        }
        followLocalHead(source, mirror);
        writeAttributes(mirror);
    }

    /**
     * Points the mirror's own HEAD where a local source's HEAD points: at its branch, or detached.
     * {@link Mirror#resolve} names that branch as the ref of {@code HEAD} when the branch is where
     * the fetched HEAD is. A URL source keeps the HEAD its clone got (its default branch), which is
     * only named when it still agrees with the fetched HEAD.
     */
    private static void followLocalHead(Source source, Path mirror) throws IOException {
        if (!source.local()) {
            return;
        }
        Git.Result branch = Git.run(Path.of(source.location()), Git.LOCAL_TIMEOUT,
                List.of("symbolic-ref", "--quiet", "HEAD"));
        if (branch.ok() && branch.text().startsWith("refs/heads/") && Mirror.isRefName(branch.text())) {
            if (!headNames(mirror, branch.text())) {
                git(mirror, source, "symbolic-ref", "HEAD", branch.text());
            }
            return;
        }
        Git.Result head = Git.run(mirror, Git.LOCAL_TIMEOUT,
                List.of("rev-parse", "--verify", "--quiet", SOURCE_HEAD + "^{commit}"));
        if (head.ok()) {
            git(mirror, source, "update-ref", "--no-deref", "HEAD", head.text());
        }
    }

    /**
     * Whether the mirror's HEAD already names {@code branch}, read from its {@code HEAD} file: one
     * git process less on every sync. Any other form (a detached HEAD, the reftable format's
     * placeholder) reads as no, and git sets it as before.
     */
    static boolean headNames(Path mirror, String branch) {
        try {
            return Files.readString(mirror.resolve("HEAD"), StandardCharsets.UTF_8).equals("ref: " + branch + "\n");
        } catch (IOException e) {
            return false;
        }
    }

    private static List<String> fetchArgs(Source source, List<String> refspecs) {
        List<String> args = new ArrayList<>(List.of(
                "-c", "gc.autoDetach=false", "fetch", "--prune", "--quiet", "--no-write-fetch-head", "--",
                source.remote().url()));
        args.addAll(refspecs);
        return args;
    }

    private static void git(Path dir, Source source, String... args) throws IOException {
        Git.Result result = Git.run(dir, Git.LOCAL_TIMEOUT, List.of(args));
        if (!result.ok()) {
            throw failure("git " + args[0] + " failed for", source, result);
        }
    }

    static CheckoutException failure(String what, Source source, Git.Result result) {
        return new CheckoutException(what + " " + source.display() + ": " + source.scrub(Git.oneLine(result.stderr())));
    }

    private static void writeAttributes(Path mirror) throws IOException {
        Path attributes = mirror.resolve("info").resolve("attributes");
        if (Files.isRegularFile(attributes) && Files.readString(attributes).equals(ATTRIBUTES)) {
            return;
        }
        Files.createDirectories(attributes.getParent());
        Files.writeString(attributes, ATTRIBUTES, StandardCharsets.UTF_8);
    }

    private static Path lockFile(Path mirror) {
        return mirror.resolveSibling(mirror.getFileName() + ".lock");
    }

    /** Temporary clones a killed process left behind; only the lock holder clones this mirror. */
    private void removeStaleClones(Path mirror) throws IOException {
        try (DirectoryStream<Path> stale = Files.newDirectoryStream(mirrorsDir, mirror.getFileName() + ".clone-*")) {
            for (Path dir : stale) {
                deleteRecursively(dir);
            }
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
