package dev.knotless.spindle.setup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TangledRepoTest {

    static final String DID = "did:plc:ownerownerownerowner1234";

    private static TangledRepo repo(String name, String knot) {
        return new TangledRepo("at://" + DID + "/sh.tangled.repo/3kabc", DID, name, knot);
    }

    @Test
    void itsRepositoryNameIsTheDidMadeANamePartThenTheName() {
        assertThat(repo("hello.world", "knot.example.com").repoName()).isEqualTo("did-plc-ownerownerownerowner1234/hello.world");
        TangledRepo web = new TangledRepo("at://did:web:example.com%3A8080/sh.tangled.repo/x", "did:web:example.com%3A8080", "r", "k.example");
        assertThat(web.repoName()).isEqualTo("did-web-example.com-3A8080/r");
        // What this project accepts as a repository name.
        dev.knotless.forge.Repository.checkName(web.repoName());
        assertThat(web.rkey()).isEqualTo("x");
    }

    @Test
    void aKnotIsAHostWithAnOptionalPortInLowerCase() {
        assertThat(repo("r", "Knot.Example.COM").knot()).isEqualTo("knot.example.com");
        assertThat(repo("r", "localhost:5555").knot()).isEqualTo("localhost:5555");
        assertThat(repo("r", "127.0.0.1:6000").knot()).isEqualTo("127.0.0.1:6000");
        for (String bad : new String[] {"https://knot.example", "knot.example/path", "user@knot.example", "knot example", "",
                "knot.example:0", "knot.example:99999", "knot.example\n", "-knot.example", "knot..example", "knot.example?x=1"}) {
            assertThatThrownBy(() -> repo("r", bad)).as(bad).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("knot");
        }
    }

    @Test
    void aNameIsOneNamePart() {
        for (String bad : new String[] {"", "..", ".hidden", "a/b", "a b", "x".repeat(101), "é"}) {
            assertThatThrownBy(() -> repo(bad, "knot.example")).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("name");
        }
        assertThat(repo("x".repeat(100), "knot.example").name()).hasSize(100);
    }

    @Test
    void theAtUriIsARepoRecordOfTheOwner() {
        assertThatThrownBy(() -> new TangledRepo("at://did:plc:someoneelse/sh.tangled.repo/x", DID, "r", "k.example"))
                .hasMessageContaining("is not a sh.tangled.repo record of " + DID);
        assertThatThrownBy(() -> new TangledRepo("at://" + DID + "/sh.tangled.spindle/x", DID, "r", "k.example"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TangledRepo("at://" + DID + "/sh.tangled.repo/a/b", DID, "r", "k.example"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TangledRepo("at://alice.test/sh.tangled.repo/x", "alice.test", "r", "k.example"))
                .hasMessageContaining("is not a DID");
    }
}
