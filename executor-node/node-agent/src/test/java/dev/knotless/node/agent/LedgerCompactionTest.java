package dev.knotless.node.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Result;
import dev.knotless.testkit.FakeClock;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerCompactionTest {

    @TempDir
    Path dir;

    final ProtocolJson json = new ProtocolJson();
    final FakeClock clock = new FakeClock();

    Path file() {
        return dir.resolve("ledger");
    }

    Ledger open() throws IOException {
        return Ledger.open(file(), MacKey.loadOrCreate(dir.resolve("ledger.key")), json, clock);
    }

    static Result result(int i) {
        return new Result.StepExited("a" + i, 1, 0, i, i, 0);
    }

    static byte[] payload(int i) {
        return ("{\"secret\":\"s" + i + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anEnvelopeIsRecordedByItsMacNeverByItsHashAndTheKeyIsTheOwnersAlone() throws Exception {
        try (Ledger ledger = open()) {
            ledger.append("k1", payload(1), result(1));
            Ledger.Entry entry = ledger.find("k1").orElseThrow();
            assertThat(entry.envelopeDigest()).startsWith("hmac-sha256:");
            assertThat(ledger.sameEnvelope(entry, payload(1))).isTrue();
            assertThat(ledger.sameEnvelope(entry, payload(2))).isFalse();
        }
        String bytes = Files.readString(file(), StandardCharsets.ISO_8859_1);
        assertThat(bytes).doesNotContain(sha256(payload(1))).doesNotContain("s1\"");
        assertThat(Files.getPosixFilePermissions(dir.resolve("ledger.key"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        try (Ledger again = open()) {
            assertThat(again.sameEnvelope(again.find("k1").orElseThrow(), payload(1))).as("the key survives a restart").isTrue();
        }
    }

    @Test
    void entriesPastTheRetentionAreDroppedAtOpenAndTheOthersKept() throws IOException {
        try (Ledger ledger = open()) {
            ledger.append("old", payload(1), result(1));
            clock.advance(Ledger.RETENTION.minusSeconds(10));
            ledger.append("new", payload(2), result(2));
        }
        clock.advance(Duration.ofSeconds(20));
        try (Ledger ledger = open()) {
            assertThat(ledger.find("old")).isEmpty();
            assertThat(ledger.find("new")).isPresent();
            assertThat(ledger.records()).isEqualTo(1);
        }
        try (Ledger ledger = open()) {
            assertThat(ledger.replay().entries()).as("the file itself was rewritten").isEqualTo(1);
        }
    }

    @Test
    void aGrowingLedgerIsCompactedWhileTheAgentRuns() throws IOException {
        try (Ledger ledger = open()) {
            for (int i = 0; i < Ledger.COMPACT_ABOVE; i++) {
                ledger.append("k" + i, payload(i), result(i));
            }
            clock.advance(Ledger.RETENTION.plusSeconds(1));
            ledger.append("last", payload(-1), result(0));
            assertThat(ledger.records()).isEqualTo(1);
            assertThat(ledger.find("last")).isPresent();
            ledger.append("after", payload(-2), result(0));
        }
        try (Ledger ledger = open()) {
            assertThat(ledger.replay().entries()).isEqualTo(2);
        }
    }

    @Test
    void aCompactionKilledBeforeItsRenameLeavesTheLedgerAsItWas() throws IOException {
        try (Ledger ledger = open()) {
            ledger.append("k1", payload(1), result(1));
        }
        byte[] before = Files.readAllBytes(file());
        Files.write(dir.resolve("ledger.compact"), new byte[] {'K', 'N', 'L'});
        try (Ledger ledger = open()) {
            assertThat(ledger.find("k1")).isPresent();
        }
        assertThat(Files.exists(dir.resolve("ledger.compact"))).isFalse();
        assertThat(Files.readAllBytes(file())).isEqualTo(before);
    }

    @Test
    void aFirstFormatLedgerIsCarriedOverItsEntriesMatchByTheirHashUntilTheyAgeOut() throws Exception {
        ByteArrayOutputStream first = new ByteArrayOutputStream();
        first.write("KNLEDG01".getBytes(StandardCharsets.US_ASCII));
        byte[] body = ("{\"envelopeDigest\":\"" + sha256(payload(1)) + "\",\"idempotencyKey\":\"k1\",\"result\":"
                + new String(json.write(result(1)), StandardCharsets.UTF_8) + "}").getBytes(StandardCharsets.UTF_8);
        CRC32C crc = new CRC32C();
        crc.update(body);
        first.write(ByteBuffer.allocate(8).putInt(body.length).putInt((int) crc.getValue()).array());
        first.write(body);
        Files.write(file(), first.toByteArray());

        try (Ledger ledger = open()) {
            Ledger.Entry entry = ledger.find("k1").orElseThrow();
            assertThat(ledger.sameEnvelope(entry, payload(1))).as("the same envelope replays").isTrue();
            assertThat(ledger.sameEnvelope(entry, payload(2))).as("another one conflicts").isFalse();
            assertThat(entry.result()).isEqualTo(result(1));
            ledger.append("k2", payload(2), result(2));
        }
        assertThat(Files.readString(file(), StandardCharsets.ISO_8859_1)).startsWith("KNLEDG02");
        clock.advance(Ledger.RETENTION.plusSeconds(1));
        try (Ledger ledger = open()) {
            assertThat(ledger.find("k1")).isEmpty();
        }
        assertThat(Files.readString(file(), StandardCharsets.ISO_8859_1)).doesNotContain(sha256(payload(1)));
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
