package dev.knotless.executor.node;

import dev.knotless.node.protocol.AtomicFiles;
import dev.knotless.node.protocol.EnrolmentToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The runner's one-time enrolment tokens, in a file of the runner's state directory. Only each
 * secret's SHA-256 is stored, so reading the file does not let anyone enrol; a token expires, and
 * works once. {@code node token} issues (another process than the daemon that redeems), so every
 * operation re-reads the file under an exclusive lock on a lock file beside it and replaces the
 * file atomically and durably.
 *
 * <p>Line format: {@code ID SHA256_HEX EXPIRES_EPOCH_SECONDS open|used}. Entries are dropped on a
 * write a day after their expiry, not before, so that a late or reused token is refused as such
 * rather than as unknown.
 */
public final class EnrolmentTokens {

    public static final String FILE_NAME = "node-enrolment-tokens";
    public static final Duration MAX_TTL = Duration.ofDays(7);
    /** How long an expired or used entry is kept, so that its refusal names why. */
    static final Duration KEPT_AFTER_EXPIRY = Duration.ofDays(1);

    private final Path file;
    private final Path lockFile;
    private final Clock clock;
    private final SecureRandom random;

    public EnrolmentTokens(Path stateDir, Clock clock, SecureRandom random) {
        this.file = stateDir.resolve(FILE_NAME);
        this.lockFile = stateDir.resolve(FILE_NAME + ".lock");
        this.clock = clock;
        this.random = random;
    }

    /** What a redemption came to: the closed set of outcomes, each refusal one line for both sides. */
    public sealed interface Redemption {
        record Redeemed() implements Redemption {}

        record Refused(String reason) implements Redemption {}
    }

    /** What the runner does with a valid token before it counts as used; its failure leaves the token unused. */
    @FunctionalInterface
    public interface Admission {
        void admit() throws IOException;
    }

    private record Entry(String id, String hashHex, long expires, boolean used) {
        String line() {
            return id + " " + hashHex + " " + expires + " " + (used ? "used" : "open");
        }
    }

    public Path file() {
        return file;
    }

    /** Issues a token valid for {@code ttl}, carrying {@code runner} (the key the node pins). */
    public EnrolmentToken issue(Duration ttl, PublicKey runner) throws IOException {
        if (ttl.isNegative() || ttl.isZero() || ttl.compareTo(MAX_TTL) > 0) {
            throw new IllegalArgumentException("a token's lifetime is more than 0 and at most " + MAX_TTL.toDays() + " days");
        }
        EnrolmentToken token = EnrolmentToken.generate(runner, random);
        long expires = clock.instant().plus(ttl).getEpochSecond();
        locked(() -> {
            List<Entry> entries = live(read());
            entries.add(new Entry(token.id(), HexFormat.of().formatHex(EnrolmentToken.hash(token.secret())), expires, false));
            write(entries);
            return null;
        });
        return token;
    }

    /**
     * Spends the token {@code id} if {@code secret} is its secret, it is unused and unexpired, and
     * {@code admission} succeeds; the comparison is of hashes, in constant time.
     */
    public Redemption redeem(String id, byte[] secret, Admission admission) throws IOException {
        byte[] presented = EnrolmentToken.hash(secret);
        return locked(() -> {
            List<Entry> entries = read();
            long now = clock.instant().getEpochSecond();
            for (int i = 0; i < entries.size(); i++) {
                Entry e = entries.get(i);
                if (!e.id().equals(id)) {
                    continue;
                }
                if (!MessageDigest.isEqual(HexFormat.of().parseHex(e.hashHex()), presented)) {
                    return new Redemption.Refused("the enrolment token is not valid");
                }
                if (e.used()) {
                    return new Redemption.Refused("the enrolment token was already used");
                }
                if (e.expires() <= now) {
                    return new Redemption.Refused("the enrolment token expired at " + Instant.ofEpochSecond(e.expires()));
                }
                admission.admit();
                entries.set(i, new Entry(e.id(), e.hashHex(), e.expires(), true));
                write(live(entries));
                return new Redemption.Redeemed();
            }
            // Entries go a day after they expire: an unknown token may be one of them.
            return new Redemption.Refused("the enrolment token is not valid (unknown to this runner, or expired)");
        });
    }

    private List<Entry> live(List<Entry> entries) {
        long now = clock.instant().minus(KEPT_AFTER_EXPIRY).getEpochSecond();
        List<Entry> kept = new ArrayList<>();
        for (Entry e : entries) {
            if (e.expires() > now) {
                kept.add(e);
            }
        }
        return kept;
    }

    private List<Entry> read() throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return new ArrayList<>();
        }
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split(" ");
            if (f.length != 4 || !f[1].matches("[0-9a-f]{64}") || !(f[3].equals("open") || f[3].equals("used"))) {
                throw new IOException(file + ":" + (i + 1) + ": not a token line");
            }
            try {
                entries.add(new Entry(f[0], f[1], Long.parseLong(f[2]), f[3].equals("used")));
            } catch (NumberFormatException e) {
                throw new IOException(file + ":" + (i + 1) + ": not a token line");
            }
        }
        return entries;
    }

    private void write(List<Entry> entries) throws IOException {
        StringBuilder text = new StringBuilder();
        entries.forEach(e -> text.append(e.line()).append('\n'));
        AtomicFiles.write(file, text.toString().getBytes(StandardCharsets.UTF_8), AtomicFiles.ownerMode());
    }

    private <T> T locked(StateFileLock.Body<T> body) throws IOException {
        return StateFileLock.locked(lockFile, body);
    }
}
