package dev.knotless.node.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.Envelope;
import dev.knotless.node.protocol.KeyFiles;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Signer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real crash: an agent process is killed with SIGKILL after its runtime changed the host and
 * before the ledger append. Restarted with the same envelope, the operation completes once. And a
 * ledger being compacted, killed at spread-out moments, replays to the same live entries.
 */
class AgentCrashIT {

    @TempDir
    Path state;

    @Test
    void aKillBetweenTheHostMutationAndTheLedgerAppendLeavesTheOperationDoneOnce() throws Exception {
        ProtocolJson json = new ProtocolJson();
        KeyPair runner = Ed25519Keys.generate();
        KeyPair node = Ed25519Keys.generate();
        Files.writeString(state.resolve("trusted-keys"),
                "runner-1 " + Ed25519Keys.encodeBase64Key(Ed25519Keys.raw(runner.getPublic())) + "\n");
        KeyFiles.writePair(state.resolve("node"), node, "node-a-id");
        long now = System.currentTimeMillis();
        byte[] frame = new Signer("runner-1", runner.getPrivate(), json).sign(Envelope.of("node-a", now,
                now + Duration.ofMinutes(5).toMillis(), "create-a1",
                new Action.CreateAllocation("node-a", "a1", "example/ci@sha256:" + "0".repeat(64), 1000, 256L << 20, java.util.Map.of())));
        Path frameFile = state.resolve("frame");
        Files.write(frameFile, frame);

        Process crashing = child(frameFile, "block");
        awaitFile(state.resolve("mutated"), crashing);
        crashing.destroyForcibly();
        assertThat(crashing.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(crashing.exitValue()).as("killed by SIGKILL").isEqualTo(128 + 9);
        assertThat(mutations()).containsExactly("created a1");
        assertThat(Files.size(state.resolve("ledger"))).as("nothing recorded: header only").isEqualTo(8);

        assertThat(runToEnd(frameFile)).isEqualTo("Executed 0 1");
        assertThat(mutations()).as("the re-run found the allocation and changed nothing").containsExactly("created a1");
        assertThat(Files.isDirectory(state.resolve("host/allocations/a1"))).isTrue();

        assertThat(runToEnd(frameFile)).isEqualTo("Replayed 1 1");
        assertThat(mutations()).containsExactly("created a1");
    }

    /**
     * SIGKILL at spread-out moments of an agent that opens (and so compacts) a ledger of 100,000
     * expired and 200 live entries, then appends: whatever the moment, the next open finds every
     * live entry and every append the child saw return, and no damage.
     */
    @Test
    void aKillAtAnyPointOfACompactionLeavesALedgerThatReplaysToTheSameLiveEntries() throws Exception {
        ProtocolJson json = new ProtocolJson();
        Path file = state.resolve("ledger");
        MacKey key = MacKey.loadOrCreate(state.resolve("ledger.key"));
        long now = System.currentTimeMillis();
        byte[] prepared = preparedLedger(json, key, now);
        String javaBinary = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int round = 0; round < 8; round++) {
            Files.write(file, prepared);
            Process child = new ProcessBuilder(javaBinary, "-cp", System.getProperty("java.class.path"),
                    LedgerCompactionChild.class.getName(), file.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            List<String> acknowledged = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread reader = Thread.ofVirtual().start(() -> {
                try (var lines = child.inputReader(StandardCharsets.UTF_8)) {
                    lines.lines().forEach(acknowledged::add);
                } catch (IOException e) {
                    // the child died
                }
            });
            Thread.sleep(300 + round * 400L);
            child.destroyForcibly();
            assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
            reader.join();
            try (Ledger ledger = Ledger.open(file, key, json, java.time.Clock.systemUTC())) {
                for (int i = 0; i < 200; i++) {
                    assertThat(ledger.find("live-" + i)).as("round %d, live-%d", round, i).isPresent();
                }
                for (String line : acknowledged) {
                    if (line.startsWith("c-")) {
                        assertThat(ledger.find(line)).as("round %d, acknowledged %s", round, line).isPresent();
                    }
                }
                assertThat(ledger.find("old-0")).as("round %d: expired entries are gone once compacted", round).isEmpty();
            }
            assertThat(Files.exists(state.resolve("ledger.compact"))).isFalse();
        }
    }

    /** 100,000 entries recorded an hour ago and 200 recorded now, in the ledger's file format. */
    private static byte[] preparedLedger(ProtocolJson json, MacKey key, long now) throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.write("KNLEDG02".getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < 100_200; i++) {
            boolean old = i < 100_000;
            String name = old ? "old-" + i : "live-" + (i - 100_000);
            byte[] body = json.write(new Ledger.Entry(name, "hmac-sha256:" + key.mac(name.getBytes(StandardCharsets.UTF_8)),
                    old ? now - 3_600_000 : now, new dev.knotless.node.protocol.Result.Done()));
            java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(body);
            out.write(java.nio.ByteBuffer.allocate(8).putInt(body.length).putInt((int) crc.getValue()).array());
            out.write(body);
        }
        return out.toByteArray();
    }

    private List<String> mutations() throws IOException {
        return Files.readAllLines(state.resolve("host/mutations.log"));
    }

    private String runToEnd(Path frameFile) throws Exception {
        Process p = child(frameFile, "run");
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(err).isZero();
        return out;
    }

    private Process child(Path frameFile, String mode) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), CrashChild.class.getName(),
                state.toString(), frameFile.toString(), mode)
                .start();
    }

    private static void awaitFile(Path file, Process process) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(file)) {
            if (!process.isAlive()) {
                throw new AssertionError("child exited early: " + new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
            }
            if (System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new AssertionError("child never reached the mutation");
            }
            Thread.sleep(20);
        }
    }
}
