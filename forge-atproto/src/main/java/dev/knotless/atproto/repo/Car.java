package dev.knotless.atproto.repo;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A CAR v1 file, read and checked: a varint-framed DAG-CBOR header {@code {version: 1, roots}},
 * then sections, each a varint length, a CID and the block's bytes. Every block is checked against
 * its CID on reading, so whatever is looked up here is what its CID names.
 *
 * <p>Bounded: at most {@link #MAX_BYTES} in all and {@link #MAX_BLOCKS} blocks. A proof of one
 * record holds a commit, a few MST nodes and the record: kilobytes.
 */
public record Car(List<Cid> roots, Map<Cid, byte[]> blocks) {

    public static final int MAX_BYTES = 8 << 20;
    public static final int MAX_BLOCKS = 10_000;
    /** A header holds a version and a few roots. */
    private static final int MAX_HEADER = 1 << 10;

    public Car {
        roots = List.copyOf(roots);
        blocks = Map.copyOf(blocks);
    }

    public Optional<byte[]> block(Cid cid) {
        return Optional.ofNullable(blocks.get(cid)).map(byte[]::clone);
    }

    public static Car read(byte[] car) throws ProofException {
        if (car.length > MAX_BYTES) {
            throw new ProofException("the CAR file holds " + car.length + " bytes, over the " + MAX_BYTES + " read");
        }
        Varint.Reader r = new Varint.Reader(car, 0, car.length);
        long headerLength = r.next("the CAR header's length");
        if (headerLength == 0 || headerLength > MAX_HEADER) {
            throw new ProofException("a CAR header of " + headerLength + " bytes");
        }
        byte[] headerBytes = r.bytes((int) headerLength, "the CAR header");
        List<Cid> roots = header(DagCbor.decode(headerBytes));
        Map<Cid, byte[]> blocks = new HashMap<>();
        int count = 0;
        while (!r.atEnd()) {
            if (++count > MAX_BLOCKS) {
                throw new ProofException("the CAR file holds over " + MAX_BLOCKS + " blocks");
            }
            long length = r.next("a CAR section's length");
            if (length > car.length - r.position()) {
                throw new ProofException("a CAR section is cut short");
            }
            int end = r.position() + (int) length;
            Varint.Reader section = new Varint.Reader(car, r.position(), end);
            Cid cid = Cid.read(section);
            byte[] data = section.bytes(end - section.position(), "a CAR block");
            r.skip((int) length);
            if (!cid.matches(data)) {
                throw new ProofException("block " + cid + " does not hash to its CID: its bytes were altered");
            }
            // A repeated CID carries the same bytes (both were hashed): keeping the first is enough.
            blocks.putIfAbsent(cid, data);
        }
        return new Car(roots, blocks);
    }

    private static List<Cid> header(Object header) throws ProofException {
        if (!(header instanceof Map<?, ?> map) || !Long.valueOf(1).equals(map.get("version"))) {
            throw new ProofException("the CAR header is not {version: 1, roots}");
        }
        if (!(map.get("roots") instanceof List<?> list) || list.isEmpty()) {
            throw new ProofException("the CAR header has no roots");
        }
        List<Cid> roots = new java.util.ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof Cid cid)) {
                throw new ProofException("a CAR root that is not a CID");
            }
            roots.add(cid);
        }
        return roots;
    }
}
