package dev.knotless.atproto.repo;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The walk down a repository's Merkle Search Tree from the commit's {@code data} to one key
 * ({@code collection/rkey}), over the nodes a proof carries.
 *
 * <p>A node is {@code {l, e: [{p, k, v, t}]}}: {@code l} the subtree of keys before the first
 * entry, each entry's key the first {@code p} bytes of the previous entry's key followed by
 * {@code k}, {@code v} the record's CID and {@code t} the subtree of keys between this entry and
 * the next. Keys must rise strictly within a node (else the search could be steered), and the walk
 * stops at {@link #MAX_DEPTH} levels; a real tree of millions of records is a handful deep.
 */
final class Mst {

    static final int MAX_DEPTH = 64;
    /** ATProto's own limit on a repository path ({@code collection/rkey}). */
    private static final int MAX_KEY_BYTES = 1024;

    private Mst() {}

    /** The CID stored at {@code key}; fails naming why when the proof does not show one. */
    static Cid find(Car car, Cid root, String key) throws ProofException {
        byte[] target = key.getBytes(StandardCharsets.UTF_8);
        Cid node = root;
        for (int depth = 0; depth < MAX_DEPTH; depth++) {
            byte[] block = car.blocks().get(node);
            if (block == null) {
                throw new ProofException("the proof lacks MST node " + node + " on the path to " + key
                        + (depth == 0 ? " (the commit's data)" : "") + ": the record is not proven to be in the repository");
            }
            if (!(DagCbor.decode(block) instanceof Map<?, ?> map)) {
                throw new ProofException("MST node " + node + " is not a map");
            }
            @Nullable Cid next = link(map.get("l"), "l", node);
            if (!(map.get("e") instanceof List<?> entries)) {
                throw new ProofException("MST node " + node + " has no entry list");
            }
            byte[] previous = new byte[0];
            for (Object o : entries) {
                if (!(o instanceof Map<?, ?> entry)) {
                    throw new ProofException("an entry of MST node " + node + " is not a map");
                }
                byte[] full = entryKey(entry, previous, node);
                int order = Arrays.compareUnsigned(target, full);
                if (order == 0) {
                    if (!(entry.get("v") instanceof Cid value)) {
                        throw new ProofException("the MST entry for " + key + " has no record CID");
                    }
                    return value;
                }
                if (order < 0) {
                    break;
                }
                next = link(entry.get("t"), "t", node);
                previous = full;
            }
            if (next == null) {
                throw new ProofException(key + " is not in the repository's MST (commit data " + root + ")");
            }
            node = next;
        }
        throw new ProofException("the MST is deeper than " + MAX_DEPTH + " levels");
    }

    private static byte[] entryKey(Map<?, ?> entry, byte[] previous, Cid node) throws ProofException {
        if (!(entry.get("p") instanceof Long prefix) || !(entry.get("k") instanceof byte[] suffix)) {
            throw new ProofException("an entry of MST node " + node + " lacks its key (p, k)");
        }
        if (prefix < 0 || prefix > previous.length || prefix + suffix.length > MAX_KEY_BYTES) {
            throw new ProofException("an entry of MST node " + node + " has a key prefix of " + prefix
                    + " bytes where the previous key has " + previous.length);
        }
        byte[] full = Arrays.copyOf(previous, prefix.intValue() + suffix.length);
        System.arraycopy(suffix, 0, full, prefix.intValue(), suffix.length);
        if (full.length == 0 || Arrays.compareUnsigned(full, previous) <= 0) {
            throw new ProofException("MST node " + node + " has keys out of order");
        }
        return full;
    }

    private static @Nullable Cid link(@Nullable Object o, String field, Cid node) throws ProofException {
        if (o == null) {
            return null;
        }
        if (!(o instanceof Cid cid)) {
            throw new ProofException("MST node " + node + " has a " + field + " that is not a CID link");
        }
        return cid;
    }
}
