package dev.knotless.node.process;

import dev.knotless.node.channel.ChannelClient;
import dev.knotless.node.channel.Enrolment;
import dev.knotless.node.channel.PeerPins;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.protocol.AtomicFiles;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.Keyset;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;

/**
 * {@code node enroll}: makes this node's identity key if it has none, proves a one-time token to
 * the runner the token names (pinned to the runner key it carries before anything is sent), and
 * adds the runner key the runner answers with to the node's keyset file. The runner adds the node
 * to its nodes file; after this, {@code node} connects as with keys copied by hand.
 */
public record Enroller(Config config) {

    /** Where the key and keyset go, and whom to ask. */
    public record Config(String nodeId, String host, int port, EnrolmentToken token, Path identityPrefix, Path keyset,
            Duration timeout) {}

    /** The closed set of outcomes; a refusal is one line, the runner's or the node's. */
    public sealed interface Outcome {
        record Enrolled(String runnerKeyId, Path identityKey, Path keyset, boolean madeKey) implements Outcome {}

        record Refused(String reason) implements Outcome {}
    }

    public Outcome enrol() throws IOException {
        Path privateFile = config.identityPrefix().resolveSibling(config.identityPrefix().getFileName() + ".key");
        boolean made = false;
        if (!Files.exists(privateFile)) {
            KeyFiles.writePair(config.identityPrefix(), Ed25519Keys.generate(), null);
            made = true;
        }
        PrivateKey key = KeyFiles.readPrivateKey(privateFile);
        TlsIdentity me = TlsIdentity.of(key, Ed25519Keys.publicKeyOf(key));
        PublicKey runner = config.token().runnerPublicKey();
        Enrolment.Answer answer = ChannelClient.enrol(config.host(), config.port(), me,
                Enrolment.Request.of(config.nodeId(), config.token()), PeerPins.of(runner, "runner"), config.timeout());
        return switch (answer) {
            case Enrolment.Refused r -> new Outcome.Refused("the runner refused the enrolment: " + r.reason());
            case Enrolment.Accepted a when !Arrays.equals(Ed25519Keys.raw(a.publicKey()), config.token().runnerKey()) ->
                    new Outcome.Refused("the runner answered with another key than the token names; nothing written");
            case Enrolment.Accepted a -> {
                addToKeyset(a.runnerKeyId(), runner);
                yield new Outcome.Enrolled(a.runnerKeyId(), privateFile, config.keyset(), made);
            }
        };
    }

    /** Adds {@code KEY_ID KEY} to the keyset file (made if missing), atomically; nothing if it is there. */
    private void addToKeyset(String keyId, PublicKey runner) throws IOException {
        Path file = config.keyset();
        String text = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        if (!text.isBlank()) {
            Map<String, PublicKey> keys = Keyset.read(file).keys();
            PublicKey known = keys.get(keyId);
            if (known != null && Arrays.equals(Ed25519Keys.raw(known), Ed25519Keys.raw(runner))) {
                return;
            }
            if (known != null) {
                throw new IOException(file + " already trusts another key as " + keyId + "; not replacing it");
            }
        }
        String line = keyId + " " + Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(runner)) + "\n";
        String next = text.isEmpty() || text.endsWith("\n") ? text + line : text + "\n" + line;
        AtomicFiles.write(file, next.getBytes(StandardCharsets.UTF_8), AtomicFiles.publicMode());
    }
}
