package dev.knotless.atproto.repo;

import dev.knotless.atproto.identity.AtprotoKey;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.params.ECDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;
import org.jspecify.annotations.Nullable;

/**
 * Builds record proofs as a PDS does, with a secp256k1 key made here: records, a three-node MST
 * (a left leaf, a root, a right leaf), a signed commit and the CAR. Every part can be swapped for
 * a tampered one.
 */
final class Fixture {

    static final String DID = "did:plc:abcdefghijklmnopqrstuvwx";
    static final String COLLECTION = "dev.knotless.check";
    /** Keys in the left leaf, the root and the right leaf, in order. */
    static final List<String> LEFT = List.of("20261203-100000-aaaaaa", "20261203-110000-bbbbbb");
    static final String MIDDLE = "20261203-120000-cccccc";
    static final List<String> RIGHT = List.of("20261203-130000-dddddd", "20261203-140000-eeeeee");

    static final X9ECParameters K1 = CustomNamedCurves.getByName("secp256k1");

    /** A secp256k1 key pair: the private scalar and the public key as ATProto writes it. */
    record Signer(BigInteger d, AtprotoKey key) {

        static Signer generate() {
            BigInteger d;
            SecureRandom random = new SecureRandom();
            do {
                d = new BigInteger(256, random);
            } while (d.signum() == 0 || d.compareTo(K1.getN()) >= 0);
            byte[] q = K1.getG().multiply(d).getEncoded(true);
            return new Signer(d, new AtprotoKey(AtprotoKey.Curve.SECP256K1, q));
        }

        /** r || s, low S, over SHA-256 of {@code message}. */
        byte[] sign(byte[] message) {
            ECDSASigner signer = new ECDSASigner(new HMacDSAKCalculator(new SHA256Digest()));
            signer.init(true, new ECPrivateKeyParameters(d, new ECDomainParameters(K1.getCurve(), K1.getG(), K1.getN(), K1.getH())));
            BigInteger[] rs = signer.generateSignature(Cid.sha256(message));
            BigInteger s = rs[1].compareTo(K1.getN().shiftRight(1)) > 0 ? K1.getN().subtract(rs[1]) : rs[1];
            return concat(fixed32(rs[0]), fixed32(s));
        }
    }

    final Signer signer = Signer.generate();
    String did = DID;
    String rev = "3lbcdefghij22";
    /** Keys left out of the CAR: to show a proof that lacks a node or the record. */
    final List<Cid> omit = new ArrayList<>();
    /** Blocks added to the CAR as they are. */
    final List<byte[]> extra = new ArrayList<>();
    /** When set, replaces the commit's bytes after signing (an altered commit keeps its old signature). */
    java.util.function.@Nullable UnaryOperator<Map<String, Object>> alterCommit;

    final Map<String, byte[]> records = new LinkedHashMap<>();
    Cid left;
    Cid right;
    Cid root;
    Cid commit;

    Fixture() {
        for (String k : all()) {
            records.put(k, DagCbor.encode(record(k)));
        }
    }

    static List<String> all() {
        List<String> keys = new ArrayList<>(LEFT);
        keys.add(MIDDLE);
        keys.addAll(RIGHT);
        return keys;
    }

    static Map<String, Object> record(String rkey) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("$type", COLLECTION);
        r.put("runId", rkey);
        r.put("status", "success");
        r.put("workflow", "unit");
        r.put("commit", "0123456789abcdef0123456789abcdef01234567");
        return r;
    }

    /** The CAR a PDS would serve for {@code rkey}: all the nodes and records (more than it needs: harmless). */
    byte[] car() {
        List<byte[]> blocks = new ArrayList<>();
        byte[] leftNode = node(null, LEFT.stream().map(k -> entry(k, null)).toList());
        byte[] rightNode = node(null, RIGHT.stream().map(k -> entry(k, null)).toList());
        left = Cid.ofDagCbor(leftNode);
        right = Cid.ofDagCbor(rightNode);
        byte[] rootNode = node(left, List.of(entry(MIDDLE, right)));
        root = Cid.ofDagCbor(rootNode);
        byte[] commitBlock = commit(root);
        commit = Cid.ofDagCbor(commitBlock);
        blocks.add(commitBlock);
        blocks.add(rootNode);
        blocks.add(leftNode);
        blocks.add(rightNode);
        blocks.addAll(records.values());
        blocks.addAll(extra);
        blocks.removeIf(b -> omit.contains(Cid.ofDagCbor(b)));
        return write(List.of(commit), blocks);
    }

    Cid recordCid(String rkey) {
        return Cid.ofDagCbor(records.get(rkey));
    }

    private byte[] commit(Cid data) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("did", did);
        c.put("version", 3L);
        c.put("data", data);
        c.put("rev", rev);
        c.put("prev", null);
        byte[] sig = signer.sign(DagCbor.encode(c));
        c.put("sig", sig);
        if (alterCommit != null) {
            c = alterCommit.apply(c);
        }
        return DagCbor.encode(c);
    }

    record Entry(String key, @Nullable Cid tree) {}

    private Entry entry(String rkey, @Nullable Cid tree) {
        return new Entry(COLLECTION + "/" + rkey, tree);
    }

    /** An MST node, keys prefix-compressed against the previous entry's as the spec writes them. */
    byte[] node(@Nullable Cid l, List<Entry> entries) {
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("l", l);
        List<Object> e = new ArrayList<>();
        byte[] previous = new byte[0];
        for (Entry x : entries) {
            byte[] key = x.key().getBytes(StandardCharsets.UTF_8);
            int p = 0;
            while (p < Math.min(previous.length, key.length) && previous[p] == key[p]) {
                p++;
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("p", (long) p);
            m.put("k", Arrays.copyOfRange(key, p, key.length));
            m.put("v", recordCid(x.key().substring(COLLECTION.length() + 1)));
            m.put("t", x.tree());
            e.add(m);
            previous = key;
        }
        n.put("e", e);
        return DagCbor.encode(n);
    }

    /** A CAR v1 of {@code blocks}, each under its own CID. */
    static byte[] write(List<Cid> roots, List<byte[]> blocks) {
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("version", 1L);
        header.put("roots", new ArrayList<Object>(roots));
        byte[] h = DagCbor.encode(header);
        Varint.Writer w = new Varint.Writer().write(h.length).raw(h);
        for (byte[] b : blocks) {
            section(w, Cid.ofDagCbor(b), b);
        }
        return w.toBytes();
    }

    static void section(Varint.Writer w, Cid cid, byte[] data) {
        byte[] c = cid.bytes();
        w.write(c.length + data.length).raw(c).raw(data);
    }

    static byte[] fixed32(BigInteger v) {
        byte[] b = v.toByteArray();
        byte[] out = new byte[32];
        int n = Math.min(32, b.length);
        System.arraycopy(b, b.length - n, out, 32 - n, n);
        return out;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
