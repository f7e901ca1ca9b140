package dev.knotless.spindle.setup;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.xrpc.Records;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Reads tangled's records that say whom a spindle serves, as tangled's docs set one up:
 *
 * <ul>
 *   <li>the owner's {@code sh.tangled.spindle} record keyed by the spindle's host name: without it
 *       the appview does not list the spindle (the spindle still serves: the records below decide);
 *   <li>the owner's {@code sh.tangled.spindle.member} records whose {@code instance} is this
 *       spindle: each {@code subject} is a member;
 *   <li>the {@code sh.tangled.repo} records, in the owner's and each member's own repository, whose
 *       {@code spindle} is this spindle. A repository of anyone else naming it is not served: anyone
 *       can write any record in their own repository.
 * </ul>
 *
 * <p>Records are other accounts' words, served by PDSes we do not run: each is checked, one that
 * does not pass is left out with one line (said once per record and reason, not at every scan),
 * and what is read is bounded ({@link #MAX_RECORDS} records per account and collection).
 */
public final class SpindleRecords {

    public static final String SPINDLE = "sh.tangled.spindle";
    public static final String MEMBER = "sh.tangled.spindle.member";
    /** Records read per account and collection; the rest are not read (said once). */
    public static final int MAX_RECORDS = 1_000;
    private static final int PAGE = 100;
    private static final int MAX_SAID = 10_000;

    /**
     * Whom the spindle serves, as last read.
     *
     * @param spindleRecord whether the owner's {@code sh.tangled.spindle/HOST} record exists
     * @param members the members' DIDs (the owner is one whether listed or not: see {@link #isMember})
     * @param repos the repositories served, ordered by {@link TangledRepo#repoName()} then AT-URI
     */
    public record Setup(String ownerDid, boolean spindleRecord, Set<String> members, List<TangledRepo> repos) {
        public Setup {
            Objects.requireNonNull(ownerDid, "ownerDid");
            members = Set.copyOf(members);
            repos = repos.stream().sorted(ORDER).toList();
        }

        /** A setup with nothing read yet: the owner alone, no repositories. */
        public static Setup empty(String ownerDid) {
            return new Setup(ownerDid, false, Set.of(), List.of());
        }

        /** Whether {@code did} may have repositories served: the owner or a member. */
        public boolean isMember(String did) {
            return ownerDid.equals(did) || members.contains(did);
        }
    }

    static final Comparator<TangledRepo> ORDER = Comparator.comparing(TangledRepo::repoName).thenComparing(TangledRepo::atUri);

    private final String owner;
    private final String hostname;
    private final PdsClients pds;
    private final Consumer<String> log;
    /** Lines said about records left out, so a full scan every few minutes does not repeat them. */
    private final Map<String, Boolean> said = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX_SAID;
        }
    };

    /**
     * @param ownerDid the spindle's owner ({@code --spindle-owner})
     * @param hostname the spindle's host name ({@code --spindle}), as records name it
     */
    public SpindleRecords(String ownerDid, String hostname, PdsClients pds, Consumer<String> log) {
        if (!Names.isDid(ownerDid)) {
            throw new IllegalArgumentException("the spindle owner '" + OneLine.ofUntrusted(ownerDid, 80) + "' is not a DID");
        }
        this.owner = ownerDid;
        this.hostname = Names.host("the spindle host name", hostname);
        this.pds = Objects.requireNonNull(pds, "pds");
        this.log = Objects.requireNonNull(log, "log");
    }

    public String owner() {
        return owner;
    }

    public String hostname() {
        return hostname;
    }

    /** Everything at once: the spindle record, the members, and the repositories of the owner and each member. */
    public Setup read() throws IOException {
        boolean record = spindleRecord();
        Set<String> members = members();
        List<TangledRepo> repos = new ArrayList<>(reposOf(owner));
        for (String member : members) {
            if (!member.equals(owner)) {
                repos.addAll(reposOf(member));
            }
        }
        return new Setup(owner, record, members, repos);
    }

    /** Whether the owner's {@code sh.tangled.spindle/HOST} record exists. */
    public boolean spindleRecord() throws IOException {
        Optional<Records.Stored> r = call(owner, c -> c.getRecord(owner, SPINDLE, hostname));
        return r.isPresent();
    }

    /** The subjects of the owner's member records for this spindle. */
    public Set<String> members() throws IOException {
        Set<String> members = new LinkedHashSet<>();
        for (Records.Stored r : list(owner, MEMBER)) {
            JsonNode v = r.value();
            JsonNode instance = v.get("instance");
            if (instance == null || !instance.isTextual()) {
                leftOut(r.uri(), "it has no instance");
                continue;
            }
            if (!instance.asText().equalsIgnoreCase(hostname)) {
                continue; // a member of another of the owner's spindles
            }
            String subject = v.path("subject").isTextual() ? v.get("subject").asText() : "";
            if (!Names.isDid(subject)) {
                leftOut(r.uri(), "its subject '" + OneLine.ofUntrusted(subject, 80) + "' is not a DID");
                continue;
            }
            members.add(subject);
        }
        return members;
    }

    /**
     * The repositories of {@code did} whose record names this spindle. Whether {@code did} is the
     * owner or a member is the caller's to know ({@link Setup#isMember}).
     */
    public List<TangledRepo> reposOf(String did) throws IOException {
        Map<String, TangledRepo> byName = new LinkedHashMap<>();
        for (Records.Stored r : list(did, TangledRepo.COLLECTION)) {
            JsonNode v = r.value();
            JsonNode spindle = v.get("spindle");
            if (spindle == null || !spindle.isTextual() || !spindle.asText().equalsIgnoreCase(hostname)) {
                continue; // another spindle's, or none: tangled's own default
            }
            TangledRepo repo;
            try {
                repo = new TangledRepo(r.uri(), did, text(v, "name"), text(v, "knot"));
            } catch (IllegalArgumentException e) {
                leftOut(r.uri(), e.getMessage());
                continue;
            }
            TangledRepo first = byName.putIfAbsent(repo.repoName(), repo);
            if (first != null) {
                leftOut(r.uri(), "its name " + repo.name() + " is " + first.atUri() + "'s already");
            }
        }
        return List.copyOf(byName.values());
    }

    /** The records of {@code collection} in {@code did}'s repository, at most {@link #MAX_RECORDS}, each of it. */
    private List<Records.Stored> list(String did, String collection) throws IOException {
        XrpcClient client = client(did);
        String prefix = "at://" + did + "/" + collection + "/";
        List<Records.Stored> all = new ArrayList<>();
        String cursor = null;
        do {
            Records.Page page;
            try {
                page = client.listRecords(did, collection, PAGE, cursor);
            } catch (IOException e) {
                pds.unreachable(did);
                throw e;
            }
            for (Records.Stored r : page.records()) {
                if (all.size() == MAX_RECORDS) {
                    leftOut("at://" + did + "/" + collection, "more than " + MAX_RECORDS + " records: the rest are not read");
                    return all;
                }
                // The PDS's word too: a record of another repository or collection is not this one's.
                if (!r.uri().startsWith(prefix) || !Names.isRecordKey(r.uri().substring(prefix.length()))) {
                    leftOut(r.uri(), "listed as a " + collection + " record of " + did + " but it is not");
                    continue;
                }
                all.add(r);
            }
            // An empty page that still gives a cursor would have us ask forever.
            cursor = page.records().isEmpty() ? null : page.cursor();
        } while (cursor != null);
        return all;
    }

    @FunctionalInterface
    private interface Call<T> {
        T on(XrpcClient client) throws IOException;
    }

    private <T> T call(String did, Call<T> call) throws IOException {
        XrpcClient client = client(did);
        try {
            return call.on(client);
        } catch (IOException e) {
            pds.unreachable(did);
            throw e;
        }
    }

    private XrpcClient client(String did) throws IOException {
        return pds.forDid(did);
    }

    private static String text(JsonNode v, String field) {
        JsonNode n = v.get(field);
        if (n == null || !n.isTextual()) {
            throw new IllegalArgumentException("it has no " + field);
        }
        return n.asText();
    }

    private void leftOut(String uri, @Nullable String why) {
        String line = "spindle: record " + OneLine.ofUntrusted(uri, 300) + " is left out: " + OneLine.ofUntrusted(why, 300);
        synchronized (said) {
            if (said.put(line, Boolean.TRUE) != null) {
                return;
            }
        }
        log.accept(line);
    }
}
