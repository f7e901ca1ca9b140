package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.Keyset;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class NodeCommandTest {

    @TempDir
    Path dir;

    record Result(int code, String out, String err) {}

    static Result run(String... args) {
        CommandLine cli = Main.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void keygenWritesAPrivateKeyFileOnlyItsOwnerCanReadAPublicKeyFileAndPrintsTheKeyId() throws Exception {
        Result r = run("node", "keygen", "--out", dir.resolve("runner").toString());

        assertThat(r.code()).as(r.err()).isZero();
        String keyId = r.out().strip();
        Path privateKey = dir.resolve("runner.key");
        Path publicKey = dir.resolve("runner.pub");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(privateKey))).isEqualTo("rw-------");
        byte[] rawPublic = Ed25519Keys.decodeBase64Key(Files.readString(publicKey), "public key");
        assertThat(keyId).isEqualTo(Ed25519Keys.keyIdOf(rawPublic));
        assertThat(Ed25519Keys.raw(KeyFiles.readPrivateKey(privateKey))).hasSize(32);

        // The documented keyset line reads back as that key.
        Keyset keyset = Keyset.parse(keyId + " " + Files.readString(publicKey), "keyset");
        assertThat(keyset.find(keyId)).contains(Ed25519Keys.readPublicKey(publicKey));
        // So does a keyset file naming the public key file, with the id from runner.id beside it.
        assertThat(Files.readString(dir.resolve("runner.id"))).isEqualTo(keyId + "\n");
        Files.writeString(dir.resolve("trusted-keys"), "@runner.pub\n");
        assertThat(Keyset.read(dir.resolve("trusted-keys")).find(keyId)).contains(Ed25519Keys.readPublicKey(publicKey));
        // And the private key signs what the public key verifies.
        byte[] data = {1, 2, 3};
        byte[] signature = Ed25519Keys.sign(KeyFiles.readPrivateKey(privateKey), data, 0, data.length);
        assertThat(Ed25519Keys.verify(Ed25519Keys.readPublicKey(publicKey), data, 0, data.length, signature)).isTrue();
    }

    @Test
    void keygenTakesAKeyIdAndRefusesToReplaceKeysOrTakeABadIdWithOneLine() {
        assertThat(run("node", "keygen", "--out", dir.resolve("n").toString(), "--key-id", "node-1.2026").out().strip())
                .isEqualTo("node-1.2026");

        Result again = run("node", "keygen", "--out", dir.resolve("n").toString());
        assertThat(again.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(again.err().strip()).isEqualTo("knotless-run: " + dir.resolve("n.key") + " already exists; not replacing a key");

        Result badId = run("node", "keygen", "--out", dir.resolve("m").toString(), "--key-id", "no spaces");
        assertThat(badId.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(badId.err().strip()).startsWith("knotless-run: key id 'no spaces' is invalid").doesNotContain("\n");
        assertThat(dir.resolve("m.key")).doesNotExist();

        Result noDir = run("node", "keygen", "--out", dir.resolve("missing/k").toString());
        assertThat(noDir.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(noDir.err().strip()).isEqualTo("knotless-run: no such directory: " + dir.resolve("missing"));
    }

    @Test
    void aPlainHttpRegistryThatNoImageReferenceCouldNameIsRefusedWithOneLine() {
        Result r = run("node", "--node-id", "n", "--server", "127.0.0.1:1", "--identity-key", dir.resolve("n.key").toString(),
                "--keyset", dir.resolve("keys").toString(), "--plain-http-registry", "10.1.2.3:5000",
                "--plain-http-registry", "http://10.1.2.3:5000");

        assertThat(r.code()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err().strip()).startsWith("knotless-run: --plain-http-registry: 'http://10.1.2.3:5000' is not a registry");
    }
}
