package dev.knotless.spindle.setup;

import dev.knotless.atproto.forge.Firehose;
import dev.knotless.spindle.setup.SpindleRecords.Setup;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Whom the spindle serves, kept current: the last {@link Setup} read by {@link SpindleRecords}.
 *
 * <p>Read two ways, as the ATProto forge reads its repositories. A full read ({@link #refresh})
 * at start, every {@code scanEvery}, and when a stream lost events ({@link #eventsLost}). Between
 * them a firehose or a {@link Jetstream} says which accounts changed ({@link #accountChanged}:
 * cheap, it only marks), and {@link #readMarked} reads those again: the owner's member records and
 * repositories when the owner changed (and the repositories of members it added), a member's
 * repositories when that member changed. An account that is neither owner nor member is not
 * marked: its records choose nothing here, and the marks stay bounded by the members.
 *
 * <p>Reading is the caller's thread's (the daemon's loop, woken by {@link #wakeWith}); the
 * queries ({@link #repos}, {@link #repo}, {@link #isMember}) read an immutable snapshot and may be
 * called from any thread. A PDS that does not answer changes nothing: what was last read of its
 * accounts is kept (the repositories last found keep running), said once until it answers again,
 * and a full read comes within {@link #RETRY_SCAN}.
 */
public final class SpindleDirectory implements Firehose.Changes {

    /** After a read fails, a full read comes no later than this. */
    public static final Duration RETRY_SCAN = Duration.ofMinutes(1);

    /** What one {@link #readMarked} or {@link #refresh} did. */
    public sealed interface Reading {
        /** Nothing was marked and no full read was due. */
        record Idle() implements Reading {}

        /** Every account asked for was read. */
        record Read(boolean full, Set<String> accounts, boolean reposChanged) implements Reading {
            public Read {
                accounts = Set.copyOf(accounts);
            }
        }

        /** Some or all accounts could not be read: what was last read of them is kept. */
        record Unreadable(String why, boolean reposChanged) implements Reading {}
    }

    private final SpindleRecords records;
    private final Duration scanEvery;
    private final Clock clock;
    private final Consumer<String> log;
    private final Set<String> marked = ConcurrentHashMap.newKeySet();
    private final List<Consumer<List<TangledRepo>>> listeners = new CopyOnWriteArrayList<>();
    private volatile Setup current;
    private volatile Instant nextScan = Instant.MIN;
    private volatile Runnable wake = () -> {};

    /** Reads one at a time; what follows is guarded by it. */
    private final Object reading = new Object();
    private final Map<String, List<TangledRepo>> reposByAccount = new HashMap<>();
    private @Nullable Boolean recordSaid;
    private boolean away;

    public SpindleDirectory(SpindleRecords records, Duration scanEvery, Clock clock, Consumer<String> log) {
        this.records = Objects.requireNonNull(records, "records");
        if (scanEvery.isNegative() || scanEvery.isZero()) {
            throw new IllegalArgumentException("the full scan interval must be positive");
        }
        this.scanEvery = scanEvery;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.log = Objects.requireNonNull(log, "log");
        this.current = Setup.empty(records.owner());
    }

    /** What to call when there is reading to do (the daemon's "look now"); none by default. */
    public void wakeWith(Runnable wake) {
        this.wake = Objects.requireNonNull(wake, "wake");
    }

    /**
     * Calls {@code listener} with the repositories served each time they change (a repository
     * added, removed, or its record changed), on the reading thread: the caller follows the knots
     * of new ones there.
     */
    public void onRepos(Consumer<List<TangledRepo>> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    // --- queries ----------------------------------------------------------------------------

    public String owner() {
        return records.owner();
    }

    /** The setup as last read. */
    public Setup setup() {
        return current;
    }

    /** The repositories served, ordered by {@link TangledRepo#repoName()}. */
    public List<TangledRepo> repos() {
        return current.repos();
    }

    /** The repository served that {@code knot} hosts for {@code did} under {@code name}. */
    public Optional<TangledRepo> repo(String knot, String did, String name) {
        return current.repos().stream()
                .filter(r -> r.knot().equalsIgnoreCase(knot) && r.did().equals(did) && r.name().equals(name))
                .findFirst();
    }

    /** Whether {@code did} is the owner or a member. */
    public boolean isMember(String did) {
        return current.isMember(did);
    }

    // --- what streams say -------------------------------------------------------------------

    /** Marks {@code did} to be read again by the next {@link #readMarked}; called on a stream's thread. */
    @Override
    public void accountChanged(String did) {
        if (!current.isMember(did)) {
            // Until the owner's records say so, a repository of this account is not served: its
            // commits change nothing here. A member added later is read whole when the owner's
            // member records are read.
            return;
        }
        marked.add(did);
        wake.run();
    }

    /** Makes the next {@link #readMarked} a full read. */
    @Override
    public void eventsLost() {
        nextScan = Instant.MIN;
        wake.run();
    }

    // --- reading ----------------------------------------------------------------------------

    /** Reads every account now. */
    public Reading refresh() {
        synchronized (reading) {
            return readAll();
        }
    }

    /** A full read when one is due (the interval passed, or events were lost), else the accounts marked since the last read. */
    public Reading readMarked() {
        synchronized (reading) {
            if (!clock.instant().isBefore(nextScan)) {
                return readAll();
            }
            if (marked.isEmpty()) {
                return new Reading.Idle();
            }
            return readChanged();
        }
    }

    private Reading readAll() {
        Instant now = clock.instant();
        nextScan = now.plus(scanEvery);
        // Marks made from here on may be of commits this read does not see: they are kept.
        Set<String> covered = Set.copyOf(marked);
        Setup was = current;
        boolean record;
        Set<String> members;
        try {
            record = records.spindleRecord();
            members = records.members();
        } catch (IOException e) {
            return cannotRead(e, false);
        }
        marked.removeAll(covered);
        Set<String> accounts = accounts(members);
        IOException failed = null;
        Map<String, List<TangledRepo>> next = new HashMap<>();
        for (String account : accounts) {
            try {
                next.put(account, records.reposOf(account));
            } catch (IOException e) {
                failed = failed == null ? e : failed;
                List<TangledRepo> kept = reposByAccount.get(account);
                if (kept != null) {
                    next.put(account, kept);
                }
            }
        }
        reposByAccount.clear();
        reposByAccount.putAll(next);
        boolean changed = publish(was, record, members);
        return failed != null ? cannotRead(failed, changed) : read(new Reading.Read(true, accounts, changed));
    }

    private Reading readChanged() {
        List<String> take = List.copyOf(marked);
        marked.removeAll(take);
        Setup was = current;
        boolean record = was.spindleRecord();
        Set<String> members = was.members();
        Set<String> toRead = new LinkedHashSet<>();
        IOException failed = null;
        if (take.contains(owner())) {
            try {
                record = records.spindleRecord();
                members = records.members();
                toRead.add(owner());
                Set<String> added = new HashSet<>(members);
                added.removeAll(was.members());
                toRead.addAll(added);
            } catch (IOException e) {
                failed = e;
            }
        }
        Set<String> accounts = accounts(members);
        reposByAccount.keySet().retainAll(accounts); // members removed: their repositories are no longer served
        for (String did : take) {
            if (accounts.contains(did)) {
                toRead.add(did);
            }
        }
        for (String did : toRead) {
            try {
                reposByAccount.put(did, records.reposOf(did));
            } catch (IOException e) {
                failed = failed == null ? e : failed;
            }
        }
        boolean changed = publish(was, record, members);
        return failed != null ? cannotRead(failed, changed) : read(new Reading.Read(false, toRead, changed));
    }

    /** The owner and the members: whose repositories are served. */
    private Set<String> accounts(Set<String> members) {
        Set<String> accounts = new LinkedHashSet<>();
        accounts.add(owner());
        accounts.addAll(members);
        return accounts;
    }

    /** Makes what was read the current setup; tells the listeners when the repositories changed. */
    private boolean publish(Setup was, boolean record, Set<String> members) {
        List<TangledRepo> repos = new ArrayList<>();
        reposByAccount.values().forEach(repos::addAll);
        Setup now = new Setup(owner(), record, members, repos);
        current = now;
        sayRecord(record);
        if (now.repos().equals(was.repos())) {
            return false;
        }
        Set<TangledRepo> before = Set.copyOf(was.repos());
        Set<TangledRepo> after = Set.copyOf(now.repos());
        for (TangledRepo r : now.repos()) {
            if (!before.contains(r)) {
                log.accept("spindle: serving " + r.repoName() + " on knot " + r.knot() + " (" + r.atUri() + ")");
            }
        }
        for (TangledRepo r : was.repos()) {
            if (!after.contains(r)) {
                log.accept("spindle: no longer serving " + r.repoName() + " on knot " + r.knot() + " (" + r.atUri() + ")");
            }
        }
        for (Consumer<List<TangledRepo>> listener : listeners) {
            try {
                listener.accept(now.repos());
            } catch (RuntimeException e) {
                log.accept("spindle: a listener of the repositories failed: " + OneLine.ofUntrusted(String.valueOf(e), 300));
            }
        }
        return true;
    }

    /** The spindle record's absence said once, and its coming back. */
    private void sayRecord(boolean record) {
        if (recordSaid != null && recordSaid == record) {
            return;
        }
        if (!record) {
            log.accept("spindle: " + owner() + " has no " + SpindleRecords.SPINDLE + "/" + records.hostname()
                    + " record: the appview will not list this spindle (repositories that choose it are served all the same)");
        } else if (recordSaid != null) {
            log.accept("spindle: " + owner() + "'s " + SpindleRecords.SPINDLE + "/" + records.hostname() + " record is there now");
        }
        recordSaid = record;
    }

    private Reading cannotRead(IOException e, boolean changed) {
        String why = OneLine.ofUntrusted(Objects.toString(e.getMessage(), e.getClass().getSimpleName()), 300);
        if (!away) {
            log.accept("spindle: cannot read records (the repositories last found keep running): " + why);
            away = true;
        }
        Instant retry = clock.instant().plus(RETRY_SCAN);
        if (retry.isBefore(nextScan)) {
            nextScan = retry;
        }
        return new Reading.Unreadable(why, changed);
    }

    private Reading read(Reading.Read r) {
        if (away) {
            log.accept("spindle: records can be read again");
            away = false;
        }
        return r;
    }
}
