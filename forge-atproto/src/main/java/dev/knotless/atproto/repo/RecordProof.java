package dev.knotless.atproto.repo;

import dev.knotless.atproto.identity.AtprotoKey;
import java.util.Map;

/**
 * Checks a proof of one record ({@code com.atproto.sync.getRecord}'s CAR) from the top down: the
 * blocks hash to their CIDs, the root is a commit of the expected repository signed by its key,
 * the commit's MST holds the record's path, and the record block is the one the MST names.
 * Anything else is a {@link ProofException} naming the first thing that failed.
 */
public final class RecordProof {

    private RecordProof() {}

    /** What a verified proof establishes. */
    public record Verified(String did, String collection, String rkey, Cid commit, String rev, Cid record,
            Map<String, Object> value) {}

    public static Verified verify(byte[] carBytes, String did, String collection, String rkey, AtprotoKey key)
            throws ProofException {
        Car car = Car.read(carBytes);
        if (car.roots().size() != 1) {
            throw new ProofException("the proof has " + car.roots().size() + " roots (a record's proof has its commit alone)");
        }
        Cid commitCid = car.roots().getFirst();
        byte[] commitBlock = car.blocks().get(commitCid);
        if (commitBlock == null) {
            throw new ProofException("the proof lacks its commit block " + commitCid);
        }
        Commit commit = Commit.parse(commitCid, commitBlock);
        if (!commit.did().equals(did)) {
            // A commit signed by someone, but of another repository: it proves nothing about this one.
            throw new ProofException("the commit is of repository " + commit.did() + ", not " + did);
        }
        if (!key.verifies(commit.unsigned(), commit.sig())) {
            throw new ProofException("the commit " + commitCid + " (rev " + commit.rev() + ") is not signed by " + did
                    + "'s #atproto key " + key.didKey());
        }
        String path = collection + "/" + rkey;
        Cid recordCid = Mst.find(car, commit.data(), path);
        byte[] record = car.blocks().get(recordCid);
        if (record == null) {
            throw new ProofException("the proof lacks the record block " + recordCid + " that the MST names for " + path);
        }
        if (!(DagCbor.decode(record) instanceof Map<?, ?> value)) {
            throw new ProofException("record " + recordCid + " is not a map");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> typed = (Map<String, Object>) value;
        return new Verified(did, collection, rkey, commitCid, commit.rev(), recordCid, typed);
    }
}
