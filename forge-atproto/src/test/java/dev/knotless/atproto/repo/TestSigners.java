package dev.knotless.atproto.repo;

/** The fixture's secp256k1 signer, for tests in other packages. */
public final class TestSigners {

    private TestSigners() {}

    public record K1(Fixture.Signer signer) {
        public byte[] sign(byte[] message) {
            return signer.sign(message);
        }

        public dev.knotless.atproto.identity.AtprotoKey key() {
            return signer.key();
        }
    }

    public static K1 secp256k1() {
        return new K1(Fixture.Signer.generate());
    }
}
