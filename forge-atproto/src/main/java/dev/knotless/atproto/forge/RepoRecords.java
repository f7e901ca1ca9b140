package dev.knotless.atproto.forge;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.atproto.xrpc.Records;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.forge.Repository;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The {@code dev.knotless.repo} records of every account a PDS hosts that name one runner: the
 * backfill that finds repositories without a firehose. Each record becomes a {@link Repository}
 * named {@code OWNER/NAME}, OWNER the account's DID made a name part ({@code did:plc:abc} is
 * {@code did-plc-abc}): a DID never changes, where a handle may, and a renamed repository would
 * start again from a new baseline.
 *
 * <p>Records are other accounts' words: each is checked as a repository record is, and one that
 * does not pass is left out with one line; counts and pages are bounded.
 */
public record RepoRecords(XrpcClient pds, Consumer<String> log) {

    public static final String COLLECTION = "dev.knotless.repo";
    static final int MAX_ACCOUNTS = 100_000;
    static final int MAX_RECORDS_PER_ACCOUNT = 1_000;
    private static final int PAGE = 100;

    /** A repository found, with the record's AT-URI (what checks name it by). */
    public record Found(Repository repository, String atUri) {}

    /** Every repository on the PDS whose record names {@code runnerDid}, by name. */
    public Map<String, Found> naming(String runnerDid) throws IOException {
        Map<String, Found> found = new LinkedHashMap<>();
        for (String account : accounts()) {
            of(account, runnerDid).forEach(found::putIfAbsent);
        }
        return found;
    }

    /**
     * The repositories of one account whose record names {@code runnerDid}, by name: what the
     * firehose has read again when a commit touched the account's repository records.
     */
    public Map<String, Found> of(String account, String runnerDid) throws IOException {
        Map<String, Found> found = new LinkedHashMap<>();
        String cursor = null;
        int seen = 0;
        do {
            Records.Page page = pds.listRecords(account, COLLECTION, PAGE, cursor);
            for (Records.Stored r : page.records()) {
                if (++seen > MAX_RECORDS_PER_ACCOUNT) {
                    log.accept("atproto: " + account + " holds more than " + MAX_RECORDS_PER_ACCOUNT + " " + COLLECTION
                            + " records; the rest are not read");
                    break;
                }
                repository(account, r, runnerDid).ifPresent(f -> found.putIfAbsent(f.repository().name(), f));
            }
            cursor = seen > MAX_RECORDS_PER_ACCOUNT ? null : page.cursor();
        } while (cursor != null);
        return found;
    }

    /** The DIDs of the accounts the PDS hosts ({@code com.atproto.sync.listRepos}). */
    private List<String> accounts() throws IOException {
        List<String> dids = new ArrayList<>();
        String cursor = null;
        do {
            Map<String, String> parameters = new LinkedHashMap<>();
            parameters.put("limit", "1000");
            if (cursor != null) {
                parameters.put("cursor", cursor);
            }
            JsonNode answer = pds.query("com.atproto.sync.listRepos", parameters);
            for (JsonNode repo : answer.path("repos")) {
                String did = repo.path("did").asText("");
                boolean active = !repo.has("active") || repo.path("active").asBoolean(true);
                if (did.startsWith("did:") && did.length() <= 2048 && active) {
                    dids.add(did);
                }
            }
            JsonNode next = answer.get("cursor");
            cursor = next == null || next.isNull() || answer.path("repos").isEmpty() ? null : next.asText();
        } while (cursor != null && dids.size() < MAX_ACCOUNTS);
        return dids;
    }

    private java.util.Optional<Found> repository(String account, Records.Stored record, String runnerDid) {
        JsonNode v = record.value();
        List<String> runners = new ArrayList<>();
        for (JsonNode r : v.path("runners")) {
            runners.add(r.asText(""));
        }
        if (!runners.contains(runnerDid)) {
            return java.util.Optional.empty();
        }
        try {
            Repository repo = new Repository(owner(account) + "/" + v.path("name").asText(""), v.path("cloneUrl").asText(""),
                    v.path("defaultBranch").asText(""), runners, List.of());
            return java.util.Optional.of(new Found(repo, record.uri()));
        } catch (IllegalArgumentException e) {
            log.accept("atproto: record " + record.uri() + " is left out: " + OneLine.ofUntrusted(e.getMessage(), 300));
            return java.util.Optional.empty();
        }
    }

    /** A DID as a repository name part: {@code :} and {@code %} become {@code -}, at most 100 characters. */
    static String owner(String did) {
        String part = did.replace(':', '-').replace('%', '-').replaceAll("[^A-Za-z0-9._-]", "-");
        return part.length() > 100 ? part.substring(0, 100) : part;
    }

}
