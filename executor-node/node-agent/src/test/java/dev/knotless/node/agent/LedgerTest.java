package dev.knotless.node.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LedgerTest {

    @TempDir
    Path dir;

    final ProtocolJson json = new ProtocolJson();

    static final long RECORDED_AT = System.currentTimeMillis();

    static Ledger.Entry entry(int i) {
        return new Ledger.Entry("key-" + i, "hmac-sha256:" + String.format("%064x", i), RECORDED_AT,
                new Result.StepExited("a" + i, 1, i, 10L * i, i, 0));
    }

    Path file() {
        return dir.resolve("ledger");
    }

    void write(int count) throws IOException {
        try (Ledger ledger = Ledger.open(file(), json)) {
            for (int i = 0; i < count; i++) {
                ledger.append(entry(i));
            }
        }
    }

    @Test
    void entriesSurviveARestart() throws IOException {
        write(3);

        try (Ledger ledger = Ledger.open(file(), json)) {
            assertThat(ledger.replay()).isEqualTo(new Ledger.Replay(3, 0));
            for (int i = 0; i < 3; i++) {
                assertThat(ledger.find("key-" + i)).contains(entry(i));
            }
            assertThat(ledger.find("key-3")).isEmpty();
        }
    }

    @Test
    void aTornLastRecordIsDroppedAtEveryPossibleTearAndAppendsContinueAfterTheGoodOnes() throws IOException {
        write(2);
        long twoEntries = Files.size(file());
        write(0);
        try (Ledger ledger = Ledger.open(file(), json)) {
            ledger.append(entry(2));
        }
        byte[] full = Files.readAllBytes(file());

        for (long cut = twoEntries + 1; cut < full.length; cut++) {
            Files.write(file(), Arrays.copyOf(full, (int) cut));
            try (Ledger ledger = Ledger.open(file(), json)) {
                assertThat(ledger.replay()).as("cut at %d", cut).isEqualTo(new Ledger.Replay(2, cut - twoEntries));
                assertThat(ledger.find("key-2")).isEmpty();
                assertThat(Files.size(file())).isEqualTo(twoEntries);
                ledger.append(entry(7));
            }
            try (Ledger ledger = Ledger.open(file(), json)) {
                assertThat(ledger.replay().entries()).isEqualTo(3);
                assertThat(ledger.find("key-7")).contains(entry(7));
            }
        }
    }

    @Test
    void aLastRecordWithABadChecksumOrZeroFillIsTorn() throws IOException {
        write(2);
        byte[] full = Files.readAllBytes(file());
        byte[] corrupt = full.clone();
        corrupt[corrupt.length - 2] ^= 1;
        Files.write(file(), corrupt);
        try (Ledger ledger = Ledger.open(file(), json)) {
            assertThat(ledger.replay().entries()).isEqualTo(1);
        }

        write(0);
        byte[] zeroFilled = Arrays.copyOf(Files.readAllBytes(file()), Files.readAllBytes(file()).length + 4096);
        Files.write(file(), zeroFilled);
        try (Ledger ledger = Ledger.open(file(), json)) {
            assertThat(ledger.replay()).isEqualTo(new Ledger.Replay(1, 4096));
        }
    }

    @Test
    void damageBeforeTheLastRecordRefusesToOpen() throws IOException {
        write(3);
        byte[] bytes = Files.readAllBytes(file());
        bytes[8 + 8 + 3] ^= 1; // inside the first record's body
        Files.write(file(), bytes);

        assertThatThrownBy(() -> Ledger.open(file(), json))
                .isInstanceOf(LedgerCorruptException.class)
                .hasMessageContaining("offset 8")
                .hasMessageContaining("not the last one");
    }

    @Test
    void aFileThatIsNotALedgerRefusesToOpen() throws IOException {
        Files.writeString(file(), "this is something else entirely");

        assertThatThrownBy(() -> Ledger.open(file(), json)).isInstanceOf(LedgerCorruptException.class)
                .hasMessage("not a ledger file (bad header)");
    }

    @Test
    void aKeyIsRecordedOnce() throws IOException {
        try (Ledger ledger = Ledger.open(file(), json)) {
            ledger.append(entry(1));
            assertThatThrownBy(() -> ledger.append(entry(1))).isInstanceOf(IllegalStateException.class);
        }
    }
}
