package dev.knotless.atproto.repo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Alters proofs that a real PDS served, for tests in other packages. */
public final class TestCars {

    private TestCars() {}

    /** A CAR v1 of {@code blocks}, each under its own CID, for tests that build frames. */
    public static byte[] write(List<Cid> roots, List<byte[]> blocks) {
        return Fixture.write(roots, blocks);
    }

    /**
     * {@code car} with each record block whose {@code field} is {@code from} replaced by one where it
     * is {@code to}, under the new block's own CID: a well-formed CAR, as a forger would serve it.
     */
    public static byte[] replaceRecord(byte[] car, String field, String from, String to) throws ProofException {
        Car read = Car.read(car);
        List<byte[]> blocks = new ArrayList<>();
        int replaced = 0;
        for (byte[] b : read.blocks().values()) {
            if (DagCbor.decode(b) instanceof Map<?, ?> m && from.equals(m.get(field))) {
                Map<String, Object> forged = new LinkedHashMap<>();
                m.forEach((k, v) -> forged.put((String) k, v));
                forged.put(field, to);
                b = DagCbor.encode(forged);
                replaced++;
            }
            blocks.add(b);
        }
        if (replaced != 1) {
            throw new IllegalStateException(replaced + " blocks have " + field + " = " + from);
        }
        return Fixture.write(read.roots(), blocks);
    }
}
