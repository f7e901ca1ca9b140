package dev.knotless.atproto.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import org.junit.jupiter.api.Test;

class DidDocumentTest {

    private static final String DID = "did:plc:lmcyul6wgw6ziwemhie2kqpt";
    /** As the reference PLC directory serves it: the older key type, an uncompressed point without prefix. */
    private static final String PLC = """
            {"@context":["https://www.w3.org/ns/did/v1","https://w3id.org/security/suites/secp256k1-2019/v1"],
             "id":"did:plc:lmcyul6wgw6ziwemhie2kqpt","alsoKnownAs":["at://runner-93734a91.test"],
             "verificationMethod":[{"id":"#atproto","type":"EcdsaSecp256k1VerificationKey2019",
               "controller":"did:plc:lmcyul6wgw6ziwemhie2kqpt",
               "publicKeyMultibase":"zMsqnaYbyoQfZ52PCrbnkUoVasMNgz75dL5cREVcuwYTgVPoewED1dQNQx52vrcifv6up1dnU3VWmvGomW3Yzq5AV"}],
             "service":[{"id":"#atproto_pds","type":"AtprotoPersonalDataServer","serviceEndpoint":"http://localhost:12583"}]}
            """;

    private static JsonNode json(String s) throws Exception {
        return new ObjectMapper().readTree(s);
    }

    @Test
    void aPlcDocumentGivesItsKeyCompressedAndItsPds() throws Exception {
        DidDocument d = DidDocument.parse(DID, json(PLC));
        assertThat(d.signingKey().curve()).isEqualTo(AtprotoKey.Curve.SECP256K1);
        assertThat(d.signingKey().compressed()).hasSize(33);
        // The same key written the newer way parses to the same key.
        assertThat(AtprotoKey.fromVerificationMethod("Multikey", d.signingKey().multibase())).isEqualTo(d.signingKey());
        assertThat(d.pds()).contains(URI.create("http://localhost:12583"));
    }

    @Test
    void aDocumentOfAnotherDidIsRefused() throws Exception {
        assertThatThrownBy(() -> DidDocument.parse("did:plc:aaaaaaaaaaaaaaaaaaaaaaaa", json(PLC)))
                .hasMessageContaining("is that of " + DID);
    }

    @Test
    void aDocumentWithoutAnAtprotoKeyOrWithAnOddOneIsRefused() throws Exception {
        assertThatThrownBy(() -> DidDocument.parse(DID, json(PLC.replace("#atproto\"", "#other\""))))
                .hasMessageContaining("no #atproto verification method");
        assertThatThrownBy(() -> DidDocument.parse(DID, json(PLC.replace("EcdsaSecp256k1VerificationKey2019", "Ed25519VerificationKey2020"))))
                .hasMessageContaining("of type Ed25519VerificationKey2020");
    }

    @Test
    void aPdsThatIsNotAnHttpUrlIsRefusedAndNoneIsEmpty() throws Exception {
        assertThatThrownBy(() -> DidDocument.parse(DID, json(PLC.replace("http://localhost:12583", "file:///etc/passwd"))))
                .hasMessageContaining("not an HTTP URL");
        assertThat(DidDocument.parse(DID, json(PLC.replace("#atproto_pds", "#elsewhere"))).pds()).isEmpty();
    }
}
