package dev.knotless.atproto.forge;

import dev.knotless.atproto.repo.Car;
import dev.knotless.atproto.repo.Cid;
import dev.knotless.atproto.repo.Commit;
import dev.knotless.atproto.repo.DagCbor;
import dev.knotless.atproto.repo.ProofException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One frame of {@code com.atproto.sync.subscribeRepos}: a DAG-CBOR header {@code {op, t}} then a
 * DAG-CBOR body, in one binary WebSocket message. Only what discovery needs is kept.
 *
 * <p>A frame is the PDS's words, read strictly and bounded: at most {@link #MAX_BYTES} (the
 * lexicon's bound for a body; the header is a few bytes), decoded by the strict {@link DagCbor}
 * (nesting at most 64, no length believed beyond the bytes), exactly two values. A commit's
 * {@code blocks}, when it has any, must be a CAR whose every block hashes to its CID and which
 * holds the commit it names, of the account the frame says. Its signature is checked where it is
 * acted on ({@link Firehose}, {@link CommitSignatures}).
 */
public sealed interface FirehoseFrame {

    /** The lexicon's bound on a frame's body; a whole frame over it is refused. */
    int MAX_BYTES = 5 << 20;
    /** The lexicon's bound on a commit's operations. */
    int MAX_OPS = 200;
    int MAX_DID = 2048;
    int MAX_PATH = 1024;

    /** The stream position of frames that have one. */
    interface Sequenced {
        long seq();
    }

    /** A repository changed: {@code ops} are the records written or deleted. */
    /** @param signed the signed commit the frame carries; null when the PDS left its blocks out ({@code tooBig}) */
    record Commit(long seq, String did, List<Op> ops, dev.knotless.atproto.repo.@Nullable Commit signed)
            implements FirehoseFrame, Sequenced {
        public Commit {
            ops = List.copyOf(ops);
        }

        /** Whether an operation touched a record of {@code collection}. */
        public boolean touches(String collection) {
            return ops.stream().anyMatch(op -> op.path().startsWith(collection + "/"));
        }
    }

    /** One record operation of a commit; {@code cid} is null for a delete. */
    record Op(String action, String path, @Nullable Cid cid) {}

    /** The account's repository was replaced wholesale (a {@code #sync}): its records must be read again. */
    record Sync(long seq, String did) implements FirehoseFrame, Sequenced {}

    /** {@code #identity} or {@code #account}: handles and hosting status, which discovery leaves to the full scan. */
    record AccountEvent(long seq, String did, String type) implements FirehoseFrame, Sequenced {}

    /** {@code #info}: {@code OutdatedCursor} says events since the cursor were lost. */
    record Info(String name, String message) implements FirehoseFrame {}

    /** An error frame ({@code op: -1}); the PDS closes the stream after it. */
    record Error(String error, String message) implements FirehoseFrame {}

    /** A message type this follower does not know: the lexicon says to skip it. */
    record Unknown(String type) implements FirehoseFrame {}

    /** Decodes and checks one frame. */
    static FirehoseFrame decode(byte[] frame) throws ProofException {
        if (frame.length > MAX_BYTES) {
            throw new ProofException("a frame of " + frame.length + " bytes, over the " + MAX_BYTES + " allowed");
        }
        List<@Nullable Object> values = DagCbor.decodeSequence(frame, 2);
        if (values.size() != 2 || !(values.get(0) instanceof Map<?, ?> header) || !(values.get(1) instanceof Map<?, ?> body)) {
            throw new ProofException("a frame that is not a header map then a body map");
        }
        Object op = header.get("op");
        if (Long.valueOf(-1).equals(op)) {
            return new Error(optionalText(body, "error", 100), optionalText(body, "message", 300));
        }
        if (!Long.valueOf(1).equals(op) || !(header.get("t") instanceof String type)) {
            throw new ProofException("a frame header that is not {op: 1, t} nor {op: -1}");
        }
        return switch (type) {
            case "#commit" -> commit(body);
            case "#sync" -> new Sync(seq(body), did(body, "did"));
            case "#identity", "#account" -> new AccountEvent(seq(body), did(body, "did"), type);
            case "#info" -> new Info(optionalText(body, "name", 100), optionalText(body, "message", 300));
            default -> new Unknown(type.length() > 100 ? type.substring(0, 100) : type);
        };
    }

    private static Commit commit(Map<?, ?> body) throws ProofException {
        long seq = seq(body);
        String did = did(body, "repo");
        if (!(body.get("ops") instanceof List<?> list)) {
            throw new ProofException("a #commit without ops");
        }
        if (list.size() > MAX_OPS) {
            throw new ProofException("a #commit of " + list.size() + " ops, over the " + MAX_OPS + " allowed");
        }
        List<Op> ops = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> m)) {
                throw new ProofException("a #commit op that is not a map");
            }
            String action = text(m, "action", 10);
            if (!Set.of("create", "update", "delete").contains(action)) {
                throw new ProofException("a #commit op of action '" + action + "'");
            }
            String path = text(m, "path", MAX_PATH);
            if (path.indexOf('/') <= 0) {
                throw new ProofException("a #commit op path that is not collection/rkey");
            }
            Object cid = m.get("cid");
            if (cid != null && !(cid instanceof Cid)) {
                throw new ProofException("a #commit op cid that is not a CID link");
            }
            if ((cid == null) != action.equals("delete")) {
                throw new ProofException("a #commit " + action + " op " + (cid == null ? "without" : "with") + " a cid");
            }
            ops.add(new Op(action, path, (Cid) cid));
        }
        return new Commit(seq, did, ops, blocks(body, did));
    }

    /** The commit's CAR, when it has one, must hold the commit it names, signed for the frame's account. */
    private static dev.knotless.atproto.repo.@Nullable Commit blocks(Map<?, ?> body, String did) throws ProofException {
        if (!(body.get("blocks") instanceof byte[] blocks) || !(body.get("commit") instanceof Cid commit)) {
            throw new ProofException("a #commit without blocks or commit");
        }
        if (blocks.length == 0 && Boolean.TRUE.equals(body.get("tooBig"))) {
            return null; // an older PDS leaves the blocks out of a large commit; the ops still say what changed
        }
        Car car = Car.read(blocks);
        Optional<byte[]> block = car.block(commit);
        if (block.isEmpty()) {
            throw new ProofException("a #commit whose blocks lack its commit " + commit);
        }
        dev.knotless.atproto.repo.Commit signed = dev.knotless.atproto.repo.Commit.parse(commit, block.get());
        if (!signed.did().equals(did)) {
            throw new ProofException("a #commit of " + did + " carrying a commit of " + signed.did());
        }
        return signed;
    }

    private static long seq(Map<?, ?> body) throws ProofException {
        if (!(body.get("seq") instanceof Long seq) || seq < 0) {
            throw new ProofException("a frame without a seq");
        }
        return seq;
    }

    private static String did(Map<?, ?> body, String field) throws ProofException {
        String did = text(body, field, MAX_DID);
        if (!did.startsWith("did:")) {
            throw new ProofException("a frame whose " + field + " is not a DID");
        }
        return did;
    }

    private static String text(Map<?, ?> body, String field, int most) throws ProofException {
        if (!(body.get(field) instanceof String s)) {
            throw new ProofException("a frame without " + field);
        }
        if (s.length() > most) {
            throw new ProofException("a frame whose " + field + " is over " + most + " characters");
        }
        return s;
    }

    private static String optionalText(Map<?, ?> body, String field, int most) {
        String s = body.get(field) instanceof String t ? t : "";
        s = s.replaceAll("\\p{Cntrl}+", " ");
        return s.length() > most ? s.substring(0, most) + "…" : s;
    }
}
