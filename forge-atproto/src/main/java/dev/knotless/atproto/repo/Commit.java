package dev.knotless.atproto.repo;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A signed repository commit, version 3: {@code {did, version, data, rev, prev, sig}}.
 *
 * @param data the root of the repository's MST at this commit
 * @param unsigned the bytes the signature covers: the commit's DAG-CBOR without {@code sig}
 */
public record Commit(String did, String rev, Cid data, @Nullable Cid prev, byte[] sig, byte[] unsigned) {

    public Commit {
        sig = sig.clone();
        unsigned = unsigned.clone();
    }

    @Override
    public byte[] sig() {
        return sig.clone();
    }

    @Override
    public byte[] unsigned() {
        return unsigned.clone();
    }

    public static Commit parse(Cid cid, byte[] block) throws ProofException {
        if (!(DagCbor.decode(block) instanceof Map<?, ?> map)) {
            throw new ProofException("commit " + cid + " is not a map");
        }
        if (!Long.valueOf(3).equals(map.get("version"))) {
            throw new ProofException("commit " + cid + " is of version " + map.get("version") + " (only 3 is read)");
        }
        if (!(map.get("did") instanceof String did) || !(map.get("rev") instanceof String rev)
                || !(map.get("data") instanceof Cid data) || !(map.get("sig") instanceof byte[] sig)) {
            throw new ProofException("commit " + cid + " lacks did, rev, data or sig");
        }
        Object prev = map.get("prev");
        if (prev != null && !(prev instanceof Cid)) {
            throw new ProofException("commit " + cid + " has a prev that is not a CID");
        }
        // The decoder took only the canonical form, so encoding the rest again gives the bytes
        // that were signed; a field this class does not know is kept, and so covered too.
        Map<String, @Nullable Object> rest = new LinkedHashMap<>();
        map.forEach((k, v) -> rest.put((String) k, v));
        rest.remove("sig");
        return new Commit(did, rev, data, (Cid) prev, sig, DagCbor.encode(rest));
    }
}
