package dev.knotless.atproto.repo;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * A CIDv1 as ATProto uses it: version 1, a codec (DAG-CBOR for repository blocks, raw for blobs)
 * and a SHA-256 multihash. Held as its binary form; {@link #toString()} is the base32 text form
 * ({@code bafyrei…}) that the XRPC answers show.
 */
public final class Cid {

    public static final int DAG_CBOR = 0x71;
    public static final int RAW = 0x55;
    static final int SHA2_256 = 0x12;
    /** A CID we accept is never longer: 1 + 2 (codec) + 1 + 1 + 32. */
    static final int MAX_BYTES = 64;

    private final byte[] bytes;
    private final int codec;
    private final byte[] digest;

    private Cid(byte[] bytes, int codec, byte[] digest) {
        this.bytes = bytes;
        this.codec = codec;
        this.digest = digest;
    }

    /** The CID of {@code block} as DAG-CBOR: what a block's CID must be for its bytes to be the block. */
    public static Cid ofDagCbor(byte[] block) {
        return of(DAG_CBOR, block);
    }

    static Cid of(int codec, byte[] content) {
        byte[] digest = sha256(content);
        Varint.Writer w = new Varint.Writer();
        w.write(1).write(codec).write(SHA2_256).write(32);
        byte[] head = w.toBytes();
        byte[] all = Arrays.copyOf(head, head.length + 32);
        System.arraycopy(digest, 0, all, head.length, 32);
        return new Cid(all, codec, digest);
    }

    /** A CID in its binary form, exactly (no trailing bytes). */
    public static Cid fromBytes(byte[] b) throws ProofException {
        Varint.Reader r = new Varint.Reader(b, 0, b.length);
        Cid cid = read(r);
        if (r.position() != b.length) {
            throw new ProofException("a CID has " + (b.length - r.position()) + " trailing bytes");
        }
        return cid;
    }

    /** Reads one binary CID at the reader's position (as CAR sections hold them). */
    static Cid read(Varint.Reader r) throws ProofException {
        int start = r.position();
        long version = r.next("a CID's version");
        if (version != 1) {
            // CIDv0 (a bare multihash) never appears in an ATProto repository.
            throw new ProofException("a CID of version " + version + " (only CIDv1 is used by repositories)");
        }
        long codec = r.next("a CID's codec");
        if (codec != DAG_CBOR && codec != RAW) {
            throw new ProofException("a CID with codec 0x" + Long.toHexString(codec) + " (expected dag-cbor or raw)");
        }
        long hash = r.next("a CID's hash function");
        long length = r.next("a CID's hash length");
        if (hash != SHA2_256 || length != 32) {
            throw new ProofException("a CID whose hash is not sha2-256 (function 0x" + Long.toHexString(hash) + ", " + length + " bytes)");
        }
        byte[] digest = r.bytes(32, "a CID's hash");
        return new Cid(Arrays.copyOfRange(r.array(), start, r.position()), (int) codec, digest);
    }

    public int codec() {
        return codec;
    }

    /** The binary form. */
    public byte[] bytes() {
        return bytes.clone();
    }

    /** Whether {@code content} hashes to this CID. */
    public boolean matches(byte[] content) {
        return MessageDigest.isEqual(digest, sha256(content));
    }

    static byte[] sha256(byte[] content) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(content);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cid c && Arrays.equals(bytes, c.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** Multibase base32 (lower case, no padding), prefix {@code b}. */
    @Override
    public String toString() {
        final String alphabet = "abcdefghijklmnopqrstuvwxyz234567";
        StringBuilder s = new StringBuilder("b");
        int buffer = 0;
        int bits = 0;
        for (byte x : bytes) {
            buffer = (buffer << 8) | (x & 0xff);
            bits += 8;
            while (bits >= 5) {
                s.append(alphabet.charAt((buffer >>> (bits - 5)) & 31));
                bits -= 5;
            }
        }
        if (bits > 0) {
            s.append(alphabet.charAt((buffer << (5 - bits)) & 31));
        }
        return s.toString();
    }
}
