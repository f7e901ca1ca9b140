package dev.knotless.atproto.repo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A proof built here as a PDS builds one verifies; each kind of tampering fails, naming what. */
class RecordProofTest {

    private final Fixture f = new Fixture();

    private RecordProof.Verified verify(byte[] car, String rkey) throws ProofException {
        return RecordProof.verify(car, Fixture.DID, Fixture.COLLECTION, rkey, f.signer.key());
    }

    @Test
    void everyRecordOfTheTreeIsProvenWhereverItSits() throws Exception {
        byte[] car = f.car();
        for (String rkey : Fixture.all()) {
            RecordProof.Verified v = verify(car, rkey);
            assertThat(v.record()).as(rkey).isEqualTo(f.recordCid(rkey));
            assertThat(v.value()).containsEntry("runId", rkey);
            assertThat(v.commit()).isEqualTo(f.commit);
            assertThat(v.rev()).isEqualTo(f.rev);
        }
    }

    @Test
    void aChangedRecordByteFailsItsHash() {
        byte[] car = f.car();
        byte[] tampered = replaceOnce(car, "success", "failure");
        assertThatThrownBy(() -> verify(tampered, Fixture.MIDDLE)).isInstanceOf(ProofException.class)
                .hasMessageContaining("does not hash to its CID");
    }

    @Test
    void aRecordReplacedWithAnotherBlockIsNotTheOneTheTreeNames() throws Exception {
        String rkey = Fixture.RIGHT.get(1);
        Cid honest = f.recordCid(rkey);
        f.car(); // fixes the tree with the honest record's CID
        Map<String, Object> forged = Fixture.record(rkey);
        forged.put("status", "failure");
        f.omit.add(honest);
        f.extra.add(DagCbor.encode(forged));
        // The tree (and so the signature) still names the honest record, which the proof no longer holds.
        assertThatThrownBy(() -> verify(f.car(), rkey)).hasMessageContaining("lacks the record block " + honest);
    }

    @Test
    void aChangedCommitNoLongerMatchesItsSignature() {
        f.alterCommit = c -> {
            c.put("rev", "3zzzzzzzzzz22");
            return c;
        };
        assertThatThrownBy(() -> verify(f.car(), Fixture.MIDDLE)).hasMessageContaining("is not signed by " + Fixture.DID);
    }

    @Test
    void aCommitPointingAtAnotherTreeKeepsNoValidSignature() {
        f.alterCommit = c -> {
            c.put("data", Cid.ofDagCbor(new byte[] {(byte) 0xf6}));
            return c;
        };
        assertThatThrownBy(() -> verify(f.car(), Fixture.MIDDLE)).hasMessageContaining("is not signed by");
    }

    @Test
    void anotherKeyDoesNotVerify() {
        Fixture.Signer other = Fixture.Signer.generate();
        assertThatThrownBy(() -> RecordProof.verify(f.car(), Fixture.DID, Fixture.COLLECTION, Fixture.MIDDLE, other.key()))
                .hasMessageContaining("is not signed by").hasMessageContaining(other.key().didKey());
    }

    @Test
    void aCommitOfAnotherRepositoryProvesNothingHere() {
        f.did = "did:plc:zzzzzzzzzzzzzzzzzzzzzzzz";
        assertThatThrownBy(() -> verify(f.car(), Fixture.MIDDLE))
                .hasMessageContaining("the commit is of repository did:plc:zzzzzzzzzzzzzzzzzzzzzzzz, not " + Fixture.DID);
    }

    @Test
    void aKeyNotInTheTreeIsNotProven() {
        byte[] car = f.car();
        assertThatThrownBy(() -> verify(car, "20261203-125959-ffffff")).hasMessageContaining("is not in the repository's MST");
        assertThatThrownBy(() -> verify(car, "00000000")).hasMessageContaining("is not in the repository's MST");
        assertThatThrownBy(() -> verify(car, "zzzz")).hasMessageContaining("is not in the repository's MST");
    }

    @Test
    void aProofWithoutTheNodesOnThePathProvesNothing() {
        f.car();
        f.omit.add(f.right);
        assertThatThrownBy(() -> verify(f.car(), Fixture.RIGHT.get(0))).hasMessageContaining("lacks MST node " + f.right);
    }

    @Test
    void aBlockUnderACidOfOtherBytesIsRefused() {
        Varint.Writer w = header(List.of(Cid.ofDagCbor(new byte[] {1})));
        Fixture.section(w, Cid.ofDagCbor(new byte[] {1}), new byte[] {2});
        assertThatThrownBy(() -> Car.read(w.toBytes())).hasMessageContaining("does not hash to its CID");
    }

    @Test
    void anOversizedCarIsRefusedBeforeReading() {
        assertThatThrownBy(() -> Car.read(new byte[Car.MAX_BYTES + 1])).hasMessageContaining("over the " + Car.MAX_BYTES);
    }

    @Test
    void aCarOfTooManyBlocksIsRefused() throws Exception {
        Varint.Writer w = header(List.of(Cid.ofDagCbor(new byte[] {(byte) 0xf6})));
        for (int i = 0; i <= Car.MAX_BLOCKS; i++) {
            byte[] b = DagCbor.encode((long) i);
            Fixture.section(w, Cid.ofDagCbor(b), b);
        }
        assertThatThrownBy(() -> Car.read(w.toBytes())).hasMessageContaining("over " + Car.MAX_BLOCKS + " blocks");
        // One fewer is read.
        Varint.Writer ok = header(List.of(Cid.ofDagCbor(new byte[] {(byte) 0xf6})));
        for (int i = 0; i < Car.MAX_BLOCKS; i++) {
            byte[] b = DagCbor.encode((long) i);
            Fixture.section(ok, Cid.ofDagCbor(b), b);
        }
        assertThat(Car.read(ok.toBytes()).blocks()).hasSize(Car.MAX_BLOCKS);
    }

    @Test
    void aTreeDeeperThanTheBoundIsRefused() throws Exception {
        // 70 nodes, each with only a left subtree: a chain no real tree has.
        List<byte[]> blocks = new ArrayList<>();
        Cid below = null;
        for (int i = 0; i < 70; i++) {
            Map<String, Object> n = new LinkedHashMap<>();
            n.put("l", below);
            n.put("e", List.of());
            byte[] b = DagCbor.encode(n);
            blocks.add(b);
            below = Cid.ofDagCbor(b);
        }
        Car car = Car.read(Fixture.write(List.of(below), blocks));
        assertThatThrownBy(() -> Mst.find(car, car.roots().getFirst(), "dev.knotless.check/x"))
                .hasMessageContaining("deeper than " + Mst.MAX_DEPTH);
    }

    @Test
    void aNodeWithKeysOutOfOrderIsRefused() throws Exception {
        Map<String, Object> e1 = Map.of("p", 0L, "k", "b/2".getBytes(StandardCharsets.UTF_8), "v", f.recordCid(Fixture.MIDDLE));
        Map<String, Object> e2 = Map.of("p", 0L, "k", "b/1".getBytes(StandardCharsets.UTF_8), "v", f.recordCid(Fixture.MIDDLE));
        Map<String, Object> n = new LinkedHashMap<>();
        n.put("l", null);
        n.put("e", List.of(e1, e2));
        byte[] b = DagCbor.encode(n);
        Car car = Car.read(Fixture.write(List.of(Cid.ofDagCbor(b)), List.of(b)));
        assertThatThrownBy(() -> Mst.find(car, Cid.ofDagCbor(b), "b/3")).hasMessageContaining("keys out of order");
    }

    @Test
    void aCutCarIsRefused() {
        byte[] car = f.car();
        byte[] cut = java.util.Arrays.copyOf(car, car.length - 3);
        assertThatThrownBy(() -> verify(cut, Fixture.MIDDLE)).hasMessageContaining("cut short");
    }

    private static Varint.Writer header(List<Cid> roots) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("version", 1L);
        h.put("roots", new ArrayList<Object>(roots));
        byte[] bytes = DagCbor.encode(h);
        return new Varint.Writer().write(bytes.length).raw(bytes);
    }

    /** {@code car} with the one occurrence of {@code from} (in a record) changed to {@code to}, same length. */
    private static byte[] replaceOnce(byte[] car, String from, String to) {
        String text = new String(car, StandardCharsets.ISO_8859_1);
        int at = text.indexOf(from);
        assertThat(at).isNotNegative();
        byte[] out = car.clone();
        System.arraycopy(to.getBytes(StandardCharsets.ISO_8859_1), 0, out, at, to.length());
        return out;
    }
}
