package dev.knotless.atproto.forge;

import dev.knotless.forge.CheckPublisher;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.forge.Forge;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.MergeQueue;
import dev.knotless.forge.Repository;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The ATProto forge: repositories are the {@code dev.knotless.repo} records on a PDS that name
 * this runner's DID ({@link RepoRecords}); what happens in them is found by git, exactly as the
 * embedded forge finds it; checks go to the runner's own repository on the PDS.
 *
 * <p>Built over an {@link EmbeddedForge}: the records found are written into it (added, replaced
 * when they change, removed when they no longer name the runner), and polling, cursors and the
 * merge queue are its. So a repository found on the network behaves as one added by hand, and
 * the PDS being away changes nothing but discovery: the repositories last found keep running.
 *
 * <p>Found two ways. A full scan reads every account of the PDS: at start (the backfill), again
 * every {@code scanEvery}, and when the {@link Firehose} lost events. Between scans, the firehose
 * says which accounts committed to their repository records ({@link #accountChanged}); only those
 * are read again, on the daemon's next poll round, which {@link #wakeWith} makes come now. Reading
 * stays on the daemon's thread: the firehose only marks.
 */
public final class AtprotoForge implements Forge, Firehose.Changes {

    /** Accounts marked for a read beyond this make a full scan instead: the marks stay bounded. */
    static final int MAX_PENDING = 10_000;
    /** After a targeted read fails, a full scan comes no later than this. */
    static final Duration RETRY_SCAN = Duration.ofMinutes(1);

    private final RepoRecords records;
    private final String runnerDid;
    private final EmbeddedForge local;
    private final CheckPublisher publisher;
    private final Duration scanEvery;
    private final Clock clock;
    private final Consumer<String> log;
    private final Map<String, String> atUris = new ConcurrentHashMap<>();
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final Object scanning = new Object();
    private volatile Instant nextScan = Instant.MIN;
    private volatile Runnable wake = () -> {};
    private boolean away;

    public AtprotoForge(RepoRecords records, String runnerDid, EmbeddedForge local, CheckPublisher publisher, Duration scanEvery,
            Clock clock, Consumer<String> log) {
        this.records = records;
        this.runnerDid = runnerDid;
        this.local = local;
        this.publisher = publisher;
        this.scanEvery = scanEvery;
        this.clock = clock;
        this.log = log;
    }

    /** What to call when discovery has work for the next round (the daemon's "look now"); none by default. */
    public void wakeWith(Runnable wake) {
        this.wake = wake;
    }

    @Override
    public List<Repository> repositories() throws IOException {
        synchronized (scanning) {
            scanIfDue();
            readChanged();
        }
        return local.repositories();
    }

    /** The AT-URI of the record behind a repository, by its clone URL or name; empty for one not found on the PDS. */
    public Optional<String> atUri(String cloneUrlOrName) {
        return Optional.ofNullable(atUris.get(cloneUrlOrName));
    }

    /** Marks {@code did}'s records to be read again on the next round. Cheap: called on the firehose's thread. */
    @Override
    public void accountChanged(String did) {
        if (pending.size() >= MAX_PENDING) {
            nextScan = Instant.MIN;
        } else {
            pending.add(did);
        }
        wake.run();
    }

    /** Makes the next round a full scan. */
    @Override
    public void eventsLost() {
        nextScan = Instant.MIN;
        wake.run();
    }

    private void scanIfDue() throws IOException {
        Instant now = clock.instant();
        if (now.isBefore(nextScan)) {
            return;
        }
        nextScan = now.plus(scanEvery);
        // Marks made from here on may be of commits the scan does not see: they are kept.
        Set<String> covered = Set.copyOf(pending);
        Map<String, RepoRecords.Found> found;
        try {
            found = records.naming(runnerDid);
        } catch (IOException e) {
            cannotRead(e);
            return;
        }
        readable();
        pending.removeAll(covered);
        sync(local.repositories(), found);
    }

    /** Reads again the accounts the firehose marked. */
    private void readChanged() throws IOException {
        for (String did : List.copyOf(pending)) {
            pending.remove(did);
            Map<String, RepoRecords.Found> found;
            try {
                found = records.of(did, runnerDid);
            } catch (IOException e) {
                cannotRead(e);
                // Whatever the cause (the PDS away, the account gone), the full scan settles it.
                Instant retry = clock.instant().plus(RETRY_SCAN);
                if (retry.isBefore(nextScan)) {
                    nextScan = retry;
                }
                return;
            }
            readable();
            List<Repository> had = local.repositories().stream().filter(r -> of(r, did)).toList();
            sync(had, found);
        }
    }

    /** Whether a watched repository is {@code did}'s: by its record's AT-URI, or by its name before one is known. */
    private boolean of(Repository repo, String did) {
        String uri = atUris.get(repo.name());
        return uri != null ? uri.startsWith("at://" + did + "/") : repo.name().startsWith(RepoRecords.owner(did) + "/");
    }

    private void cannotRead(IOException e) {
        if (!away) {
            log.accept("atproto: cannot read repository records (the repositories last found keep running): " + e.getMessage());
        }
        away = true;
    }

    private void readable() {
        if (away) {
            log.accept("atproto: repository records can be read again");
            away = false;
        }
    }

    /** Brings the watched repositories among {@code had} in line with {@code found}. */
    private void sync(List<Repository> had, Map<String, RepoRecords.Found> found) throws IOException {
        for (Repository was : had) {
            RepoRecords.Found now = found.get(was.name());
            if (now == null) {
                local.remove(was.name());
                atUris.remove(was.name());
                atUris.remove(was.cloneUrl());
                log.accept("atproto: repository " + was.name() + " no longer names this runner; not watched");
            } else if (!now.repository().equals(was)) {
                local.replace(now.repository());
                log.accept("atproto: repository " + was.name() + " changed its record");
            }
        }
        for (RepoRecords.Found f : found.values()) {
            if (local.repository(f.repository().name()).isEmpty()) {
                local.add(f.repository());
                log.accept("atproto: watching " + f.repository().name() + " (" + f.atUri() + ")");
            }
            atUris.put(f.repository().name(), f.atUri());
            atUris.put(f.repository().cloneUrl(), f.atUri());
        }
    }

    @Override
    public List<ForgeEvent> poll(Repository repo) throws IOException {
        return local.poll(repo);
    }

    @Override
    public void acknowledge(Repository repo, ForgeEvent event) throws IOException {
        local.acknowledge(repo, event);
    }

    @Override
    public CheckPublisher publisher() {
        return publisher;
    }

    @Override
    public Optional<MergeQueue> mergeQueue() {
        return local.mergeQueue();
    }
}
