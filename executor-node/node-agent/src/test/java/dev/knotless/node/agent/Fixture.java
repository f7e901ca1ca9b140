package dev.knotless.node.agent;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.Envelope;
import dev.knotless.node.protocol.Keyset;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import dev.knotless.testkit.FakeClock;
import java.io.IOException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;

/** One node with a trusted runner key, a ledger in a temp directory and a recording runtime. */
final class Fixture {

    static final String NODE = "node-a";
    static final String IMAGE = "registry.example:5000/ci/build@sha256:" + "ab".repeat(32);

    final ProtocolJson json = new ProtocolJson();
    final FakeClock clock = new FakeClock();
    final KeyPair runnerKey = Ed25519Keys.generate();
    final KeyPair nodeKey = Ed25519Keys.generate();
    final Signer runner = new Signer("runner-1", runnerKey.getPrivate(), json);
    final Signer nodeIdentity = new Signer("node-a-id", nodeKey.getPrivate(), json);
    final Keyset trusted = Keyset.single("runner-1", runnerKey.getPublic());
    final RecordingRuntime runtime = new RecordingRuntime();
    final Path ledgerFile;
    Ledger ledger;
    Agent agent;

    Fixture(Path dir) throws IOException {
        ledgerFile = dir.resolve("ledger");
        restart();
    }

    /** A fresh agent over the same ledger file, as after a process restart. */
    void restart() throws IOException {
        if (ledger != null) {
            ledger.close();
        }
        ledger = Ledger.open(ledgerFile, json);
        agent = new Agent(NODE, trusted, ledger, runtime, nodeIdentity, json, clock);
    }

    Envelope envelope(String key, Action action) {
        long now = clock.millis();
        return Envelope.of(NODE, now, now + Duration.ofMinutes(2).toMillis(), key, action);
    }

    byte[] signed(String key, Action action) {
        return runner.sign(envelope(key, action));
    }

    static Action create(String allocation) {
        return new Action.CreateAllocation(NODE, allocation, IMAGE, 1000, 512L * 1024 * 1024, java.util.Map.of("runner", "r1"));
    }
}
