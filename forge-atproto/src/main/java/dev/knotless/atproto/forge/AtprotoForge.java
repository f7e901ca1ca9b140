package dev.knotless.atproto.forge;

import dev.knotless.runner.forge.CheckPublisher;
import dev.knotless.runner.forge.EmbeddedForge;
import dev.knotless.runner.forge.Forge;
import dev.knotless.runner.forge.ForgeEvent;
import dev.knotless.runner.forge.MergeQueue;
import dev.knotless.runner.forge.Repository;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * <p>Found by a look at every account of the PDS, again every {@code scanEvery} at most (on the
 * daemon's next poll round); the firehose that makes this immediate is not followed yet.
 */
public final class AtprotoForge implements Forge {

    private final RepoRecords records;
    private final String runnerDid;
    private final EmbeddedForge local;
    private final CheckPublisher publisher;
    private final Duration scanEvery;
    private final Clock clock;
    private final Consumer<String> log;
    private final Map<String, String> atUris = new ConcurrentHashMap<>();
    private final Object scanning = new Object();
    private Instant lastScan = Instant.MIN;
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

    @Override
    public List<Repository> repositories() throws IOException {
        scanIfDue();
        return local.repositories();
    }

    /** The AT-URI of the record behind a repository, by its clone URL or name; empty for one not found on the PDS. */
    public Optional<String> atUri(String cloneUrlOrName) {
        return Optional.ofNullable(atUris.get(cloneUrlOrName));
    }

    private void scanIfDue() throws IOException {
        synchronized (scanning) {
            Instant now = clock.instant();
            if (now.isBefore(lastScan.plus(scanEvery))) {
                return;
            }
            lastScan = now;
            Map<String, RepoRecords.Found> found;
            try {
                found = records.naming(runnerDid);
            } catch (IOException e) {
                if (!away) {
                    log.accept("atproto: cannot read repository records (the repositories last found keep running): "
                            + e.getMessage());
                }
                away = true;
                return;
            }
            if (away) {
                log.accept("atproto: repository records can be read again");
                away = false;
            }
            sync(found);
        }
    }

    private void sync(Map<String, RepoRecords.Found> found) throws IOException {
        for (Repository had : local.repositories()) {
            RepoRecords.Found now = found.get(had.name());
            if (now == null) {
                local.remove(had.name());
                atUris.remove(had.name());
                atUris.remove(had.cloneUrl());
                log.accept("atproto: repository " + had.name() + " no longer names this runner; not watched");
            } else if (!now.repository().equals(had)) {
                local.replace(now.repository());
                log.accept("atproto: repository " + had.name() + " changed its record");
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
