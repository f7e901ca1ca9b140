package dev.knotless.forge.embedded;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.Forge;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.ForgeException;
import dev.knotless.forge.MergeQueue;
import dev.knotless.forge.Repository;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The default forge: everything on the runner host, in a forge directory ({@link RecordFiles}).
 *
 * <pre>
 * repos/OWNER+NAME.json         a {@link Repository}
 * pulls/OWNER+NAME/N.json       a pull request's metadata: {@link PullInfo}
 * queue/OWNER+NAME/N.json       a merge-queue entry: {@link QueuedPull}
 * </pre>
 *
 * <p>Files are replaced atomically (written beside, synced, renamed), so a reader sees the old or the
 * new record, never a part. Pushes and pull requests are found by {@code git ls-remote} of the clone
 * URL: a new or moved {@code refs/heads/X} is a {@link ForgeEvent.Push}, a new or moved {@code
 * refs/pulls/N/head} a {@link ForgeEvent.PullRequest}, and so are the spellings hosted forges publish
 * ({@code refs/pull/N/head}: GitHub, Gitea, Forgejo; {@code refs/merge-requests/N/head}: GitLab), so
 * a mirror or a hosted repository's pull requests are seen too. GitHub's {@code refs/pull/N/merge}
 * (its own test merge, remade whenever the target moves) is never one. The first poll of a repository records its
 * refs as they are, as a baseline, and reports nothing: the runner does not run a repository's whole
 * history when it starts watching it. Queue files are reported until acknowledged.
 *
 * <p>Cursors (per ref: the sha last acknowledged; per queue entry: its time) are kept in the given
 * {@link Cursors}. Checks are not published anywhere else: the daemon's state and HTTP API show them.
 *
 * <p>Thread-safe: each file operation is atomic on its own. Two concurrent {@link #add} calls of
 * the same name may both succeed, the later winning.
 */
public final class EmbeddedForge implements Forge {

    /**
     * A pull request's metadata; null fields take the defaults (default branch, unknown, untrusted).
     *
     * @param source who wrote the trust: {@link #HOOK} for a webhook, whose word a later hook may
     *     take back; null for an operator's grant (written by hand or by tooling), which a hook keeps
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PullInfo(String target, String author, Boolean trusted, String source) {

        /** The {@link #source} of metadata a webhook wrote. */
        public static final String HOOK = "hook";

        public PullInfo(String target, String author, Boolean trusted) {
            this(target, author, trusted, null);
        }
    }

    /** A merge-queue entry as stored. */
    public record QueuedPull(int number, String target, Instant queuedAt) {}

    static final String BASELINE = "@baseline";
    private static final String QUEUE_KEY = "queue/";
    private static final Pattern NUMBERED = Pattern.compile("([1-9][0-9]{0,8})\\.json");

    private final Path dir;
    private final Cursors cursors;
    private final Clock clock;
    private final Duration gitTimeout;
    private final RecordFiles files;

    public EmbeddedForge(Path dir, Cursors cursors, Clock clock, Duration gitTimeout) {
        this.dir = dir.toAbsolutePath().normalize();
        this.cursors = Objects.requireNonNull(cursors, "cursors");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.gitTimeout = Objects.requireNonNull(gitTimeout, "gitTimeout");
        this.files = new RecordFiles(this.dir);
    }

    /** A forge in {@code dir}, git given two minutes to list a repository's refs. */
    public EmbeddedForge(Path dir, Cursors cursors) {
        this(dir, cursors, Clock.systemUTC(), Duration.ofMinutes(2));
    }

    public Path dir() {
        return dir;
    }

    // ---- repository records ----

    /**
     * Adds a repository record.
     *
     * @throws ForgeException when one of that name exists
     */
    public void add(Repository repo) throws IOException {
        Path file = files.repo(repo.name());
        if (Files.exists(file)) {
            throw new ForgeException("repository " + repo.name() + " exists; remove it first to change it");
        }
        files.write(file, repo);
    }

    /**
     * Replaces a repository's record (its clone URL, default branch or runners changed), keeping its
     * cursors, pull and queue records: the same repository, described anew.
     *
     * @throws ForgeException when there is none of that name
     */
    public void replace(Repository repo) throws IOException {
        Path file = files.repo(repo.name());
        if (!Files.exists(file)) {
            throw new ForgeException("repository " + repo.name() + " does not exist; add it");
        }
        files.write(file, repo);
    }

    /** Removes a repository record with its pull and queue records and cursors; false when there was none. */
    public boolean remove(String name) throws IOException {
        Repository.checkName(name);
        boolean existed = Files.deleteIfExists(files.repo(name));
        RecordFiles.deleteTree(files.pulls(name));
        RecordFiles.deleteTree(files.queue(name));
        for (String key : cursors.get(name).keySet()) {
            cursors.remove(name, key); // added again, it starts from a new baseline
        }
        return existed;
    }

    public Optional<Repository> repository(String name) throws IOException {
        Path file = files.repo(Repository.checkName(name));
        return Files.exists(file) ? Optional.of(files.read(file, Repository.class)) : Optional.empty();
    }

    @Override
    public List<Repository> repositories() throws IOException {
        Path repos = files.repos();
        if (!Files.isDirectory(repos)) {
            return List.of();
        }
        List<Repository> all = new ArrayList<>();
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(repos, "*.json")) {
            for (Path file : listing) {
                try {
                    all.add(files.read(file, Repository.class));
                } catch (NoSuchFileException removedMeanwhile) {
                    // repo rm ran between the listing and the read.
                }
            }
        }
        all.sort(Comparator.comparing(Repository::name));
        return List.copyOf(all);
    }

    // ---- pull requests and the merge queue ----

    /**
     * Writes pull request {@code number}'s metadata; its head is the ref {@code refs/pulls/N/head}
     * (or a hosted forge's spelling of it, {@link PullRefs#PREFIXES}).
     */
    public void describePull(String repo, int number, PullInfo info) throws IOException {
        requireRepository(repo);
        files.write(files.pulls(repo).resolve(positive(number) + ".json"), info);
    }

    /**
     * Whether pull request {@code number}'s head ref, under any of its spellings, is in watched
     * repository {@code repo} now ({@code git ls-remote} of its clone URL): a hook may say a pull
     * request is trusted only once it exists.
     */
    public boolean pullExists(String repo, int number) throws IOException {
        Repository r = repository(repo).orElseThrow(() -> new IllegalArgumentException("no repository " + repo));
        Files.createDirectories(dir);
        return PullRefs.heads(LsRemote.refs(r, dir, gitTimeout).keySet()).containsKey(positive(number));
    }

    /** Pull request {@code number}'s metadata as written (no defaults); empty when none was. */
    public Optional<PullInfo> pull(String repo, int number) throws IOException {
        Path file = files.pulls(repo).resolve(positive(number) + ".json");
        try {
            return Optional.of(files.read(file, PullInfo.class));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * Puts pull request {@code number} in {@code repo}'s merge queue, targeting its metadata's
     * branch or the default branch. Queueing it again renews its time and reports it again.
     */
    public QueuedPull enqueue(String repo, int number) throws IOException {
        Repository record = requireRepository(repo);
        QueuedPull entry = new QueuedPull(positive(number), pullInfo(record, number).target(), clock.instant());
        files.write(files.queue(repo).resolve(number + ".json"), entry);
        return entry;
    }

    /** Takes pull request {@code number} out of the queue; false when it was not in it. */
    public boolean dequeue(String repo, int number) throws IOException {
        requireRepository(repo);
        return Files.deleteIfExists(files.queue(repo).resolve(positive(number) + ".json"));
    }

    /** {@code repo}'s queue entries, oldest first. */
    public List<QueuedPull> queue(String repo) throws IOException {
        Path queue = files.queue(Repository.checkName(repo));
        if (!Files.isDirectory(queue)) {
            return List.of();
        }
        List<QueuedPull> entries = new ArrayList<>();
        try (DirectoryStream<Path> listing = Files.newDirectoryStream(queue, "*.json")) {
            for (Path file : listing) {
                if (NUMBERED.matcher(file.getFileName().toString()).matches()) {
                    entries.add(files.read(file, QueuedPull.class));
                }
            }
        }
        entries.sort(Comparator.comparing(QueuedPull::queuedAt).thenComparing(QueuedPull::number));
        return List.copyOf(entries);
    }

    // ---- events ----

    @Override
    public List<ForgeEvent> poll(Repository repo) throws IOException {
        Files.createDirectories(dir);
        Map<String, String> now = LsRemote.refs(repo, dir, gitTimeout);
        Map<String, String> seen = cursors.get(repo.name());
        List<ForgeEvent> events = new ArrayList<>();
        if (!seen.containsKey(BASELINE)) {
            for (Map.Entry<String, String> ref : now.entrySet()) {
                if (PullRefs.watched(ref.getKey())) {
                    cursors.put(repo.name(), ref.getKey(), ref.getValue());
                }
            }
            cursors.put(repo.name(), BASELINE, clock.instant().toString());
        } else {
            for (String ref : seen.keySet()) {
                if (ref.startsWith("refs/") && !now.containsKey(ref)) {
                    cursors.remove(repo.name(), ref); // deleted: coming back is new
                }
            }
            for (Map.Entry<String, String> ref : now.entrySet()) {
                String before = seen.get(ref.getKey());
                String after = ref.getValue();
                if (after.equals(before)) {
                    continue;
                }
                if (ref.getKey().startsWith("refs/heads/")) {
                    events.add(new ForgeEvent.Push(repo.name(), ref.getKey(), before == null ? ForgeEvent.NO_COMMIT : before, after));
                }
            }
            for (Map.Entry<Integer, String> pull : PullRefs.heads(now.keySet()).entrySet()) {
                String ref = pull.getValue();
                String sha = now.get(ref);
                if (!sha.equals(seen.get(ref))) {
                    PullInfo info = pullInfo(repo, pull.getKey());
                    events.add(new ForgeEvent.PullRequest(repo.name(), pull.getKey(), sha, ref,
                            info.target(), info.author(), info.trusted()));
                }
            }
        }
        for (QueuedPull entry : queue(repo.name())) {
            if (!entry.queuedAt().toString().equals(seen.get(QUEUE_KEY + entry.number()))) {
                events.add(new ForgeEvent.QueueEntry(repo.name(), entry.number(), entry.target(), entry.queuedAt()));
            }
        }
        return List.copyOf(events);
    }

    @Override
    public void acknowledge(Repository repo, ForgeEvent event) throws IOException {
        if (!event.repo().equals(repo.name())) {
            throw new IllegalArgumentException("event of " + event.repo() + " acknowledged for " + repo.name());
        }
        switch (event) {
            case ForgeEvent.Push push -> cursors.put(repo.name(), push.ref(), push.after());
            case ForgeEvent.PullRequest pull -> cursors.put(repo.name(), pull.headRef(), pull.headSha());
            case ForgeEvent.QueueEntry entry ->
                    cursors.put(repo.name(), QUEUE_KEY + entry.number(), entry.queuedAt().toString());
            case ForgeEvent.Pipeline pipeline ->
                    throw new IllegalArgumentException("the embedded forge sends no pipelines; " + pipeline.id() + " is not its");
        }
    }

    @Override
    public CheckPublisher publisher() {
        return CheckPublisher.NONE;
    }

    @Override
    public Optional<MergeQueue> mergeQueue() {
        return Optional.of(new MergeQueue() {
            /**
             * The spelling the pull request was seen under (its cursor), in {@link PullRefs#PREFIXES}'s
             * order; {@code refs/pulls/N/head} for one never seen.
             */
            @Override
            public String headRef(Repository repo, int number) {
                Map<String, String> seen;
                try {
                    seen = cursors.get(repo.name());
                } catch (IOException e) {
                    seen = Map.of(); // the fetch of the default spelling then fails with its own line
                }
                for (String prefix : PullRefs.PREFIXES) {
                    String ref = prefix + positive(number) + "/head";
                    if (seen.containsKey(ref)) {
                        return ref;
                    }
                }
                return "refs/pulls/" + positive(number) + "/head";
            }

            @Override
            public void remove(Repository repo, int number) throws IOException {
                Files.deleteIfExists(files.queue(repo.name()).resolve(positive(number) + ".json"));
            }
        });
    }

    /**
     * Writes {@code runnerId} into the record when it names no runner. Two processes doing this at
     * once both write the same kind of change; the later one wins.
     */
    @Override
    public boolean nameRunner(Repository repo, String runnerId) throws IOException {
        Path file = files.repo(repo.name());
        if (!Files.exists(file)) {
            return false;
        }
        Repository now = files.read(file, Repository.class);
        if (!now.runners().isEmpty()) {
            return false;
        }
        files.write(file, new Repository(now.name(), now.cloneUrl(), now.defaultBranch(), List.of(runnerId), List.of()));
        return true;
    }

    // ---- lookups and checks ----

    /** {@link PullRefs#heads}, where the tests ask it. */
    static Map<Integer, String> pullHeads(Iterable<String> refs) {
        return PullRefs.heads(refs);
    }

    /** Metadata with defaults filled in. */
    private PullInfo pullInfo(Repository repo, int number) throws IOException {
        Path file = files.pulls(repo.name()).resolve(number + ".json");
        PullInfo info = Files.exists(file) ? files.read(file, PullInfo.class) : new PullInfo(null, null, null);
        return new PullInfo(
                info.target() == null || info.target().isBlank() ? repo.defaultBranch() : info.target(),
                info.author() == null || info.author().isBlank() ? "unknown" : info.author(),
                Boolean.TRUE.equals(info.trusted()));
    }

    private Repository requireRepository(String name) throws IOException {
        return repository(name).orElseThrow(() -> new ForgeException("no repository " + name
                + " (add it with: knotless-run repo add " + name + " --clone URL)"));
    }

    private static int positive(int number) {
        if (number <= 0) {
            throw new IllegalArgumentException("pull request number must be positive: " + number);
        }
        return number;
    }
}
