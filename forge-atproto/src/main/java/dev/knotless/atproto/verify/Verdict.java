package dev.knotless.atproto.verify;

import dev.knotless.atproto.identity.AtprotoKey;
import dev.knotless.atproto.repo.RecordProof;
import java.util.List;

/** How {@code checks verify} ended: one of three, each with the lines to print. */
public sealed interface Verdict {

    /** The record is in the repository of {@code did}, at a commit signed by {@code key}. */
    record Verified(AtUri uri, String pds, AtprotoKey key, RecordProof.Verified proof) implements Verdict {
        public List<String> facts() {
            return List.of(
                    "record     " + uri,
                    "record cid " + proof.record(),
                    "commit     " + proof.commit() + " rev " + proof.rev(),
                    "signed by  " + key.didKey() + " (" + key.curve().label() + ", the #atproto key in the DID document)",
                    "repository " + proof.did() + " at " + pds);
        }
    }

    /** The proof was fetched and does not prove the record (or not the runner's): the check is not to be trusted. */
    record Refused(String reason) implements Verdict {}

    /** Nothing could be checked: the DID, its PDS or the record could not be had. */
    record Unavailable(String reason) implements Verdict {}
}
