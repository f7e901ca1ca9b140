package dev.knotless.node.agent;

import dev.knotless.node.protocol.Names;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Result;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable idempotency ledger: which idempotency key ran which envelope, and what it produced.
 *
 * <p>An append-only file: an 8-byte header, then records of {@code length (u32) | crc32c (u32) |
 * body}, body being the entry as canonical JSON. Each append is one write followed by
 * {@code FileChannel.force}, so a crash can only tear the last record. On open the file is replayed;
 * a torn last record (running past the end, a bad checksum at the very end, or zero fill) is dropped
 * and cut off. Damage anywhere else is {@link LedgerCorruptException}: refusing to start is safer
 * than forgetting what ran.
 *
 * <p>An envelope is recorded by its HMAC-SHA256 under the agent's own {@link MacKey}, never by a
 * bare hash (a run-step payload holds secrets). Entries past the {@link #RETENTION} can never match
 * a valid envelope again (every envelope expires within {@link Agent#MAX_WINDOW} and the skew), so
 * {@link #compact} drops them: at open, and when the file holds more than twice the live entries. It
 * writes the live entries to {@code FILE.compact}, forces it, and renames it over the ledger, so a
 * kill at any point leaves either the old file or the new one, which replay to the same live entries.
 * A ledger of the first format ({@code KNLEDG01}, bare SHA-256 digests) is rewritten at open; its
 * entries keep their {@code sha256:} digest, count from that moment, and age out like any other.
 */
public final class Ledger implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(Ledger.class);
    private static final byte[] HEADER = "KNLEDG02".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FIRST_HEADER = "KNLEDG01".getBytes(StandardCharsets.US_ASCII);
    /** Longer than any envelope can stay valid after it was executed: its window, and the skew on both ends. */
    public static final Duration RETENTION = Agent.MAX_WINDOW.plus(Agent.CLOCK_SKEW.multipliedBy(2)).plusMinutes(1);
    /** Below this many records the file is not compacted while the agent runs. */
    static final int COMPACT_ABOVE = 10_000;
    private static final String HMAC = "hmac-sha256:";
    private static final Pattern DIGEST = Pattern.compile("(hmac-sha256|sha256):[0-9a-f]{64}");
    private static final String SHA256 = "sha256:";
    private static final int RECORD_HEADER = 8;
    private static final int MAX_BODY = 64 * 1024 * 1024;

    /**
     * @param envelopeDigest {@code hmac-sha256:HEX} of the envelope's payload, or {@code sha256:HEX} for an
     *                       entry carried over from the first format
     * @param recordedAt     when this agent recorded it (epoch ms), for the retention
     */
    public record Entry(String idempotencyKey, String envelopeDigest, long recordedAt, Result result) {
        public Entry {
            Names.idempotencyKey(idempotencyKey);
            if (envelopeDigest == null || !DIGEST.matcher(envelopeDigest).matches()) {
                throw new IllegalArgumentException("envelopeDigest must be hmac-sha256: or sha256: and 64 lower-case hex digits");
            }
            if (result == null) {
                throw new IllegalArgumentException("result is missing");
            }
        }
    }

    /** An entry of the first format, read only to carry it over. */
    private record FirstEntry(String idempotencyKey, String envelopeDigest, Result result) {}

    /** What replay found, for the agent's start-up line. */
    public record Replay(int entries, long droppedTornBytes) {}

    private final Path file;
    private final ProtocolJson json;
    private final MacKey key;
    private final Clock clock;
    private final Map<String, Entry> entries = new HashMap<>();
    private final Replay replay;
    private FileChannel channel;
    private long end;
    private int records;
    private boolean firstFormat;
    private @Nullable IOException broken;

    private Ledger(Path file, FileChannel channel, ProtocolJson json, MacKey key, Clock clock) throws IOException {
        this.file = file;
        this.channel = channel;
        this.json = json;
        this.key = key;
        this.clock = clock;
        this.replay = load();
        if (firstFormat || records > live()) {
            compact();
        }
    }

    /** Opens the ledger with its key in {@code FILE.key} beside it and the system clock. */
    public static Ledger open(Path file, ProtocolJson json) throws IOException {
        return open(file, MacKey.loadOrCreate(file.resolveSibling(file.getFileName() + ".key")), json, Clock.systemUTC());
    }

    public static Ledger open(Path file, MacKey key, ProtocolJson json, Clock clock) throws IOException {
        // Left by a compaction killed before its rename: the ledger itself is whole.
        Files.deleteIfExists(compactFile(file));
        boolean created = !Files.exists(file);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            if (created) {
                syncDirectory(file.toAbsolutePath().getParent());
            }
            return new Ledger(file, channel, json, key, clock);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    public Replay replay() {
        return replay;
    }

    public synchronized Optional<Entry> find(String idempotencyKey) {
        return Optional.ofNullable(entries.get(idempotencyKey));
    }

    public synchronized int size() {
        return entries.size();
    }

    /** Whether the entry was recorded for exactly this envelope payload. */
    public boolean sameEnvelope(Entry entry, byte[] payload) {
        String digest = entry.envelopeDigest();
        String expected = digest.startsWith(HMAC) ? HMAC + key.mac(payload) : SHA256 + sha256Hex(payload);
        return MessageDigest.isEqual(digest.getBytes(StandardCharsets.US_ASCII), expected.getBytes(StandardCharsets.US_ASCII));
    }

    /** Records what the envelope with this payload produced, by the payload's MAC, now. */
    public Entry append(String idempotencyKey, byte[] payload, Result result) throws IOException {
        Entry entry = new Entry(idempotencyKey, HMAC + key.mac(payload), clock.millis(), result);
        append(entry);
        return entry;
    }

    /** Writes the entry and forces it to disk before returning; only then does it count as recorded. */
    public synchronized void append(Entry entry) throws IOException {
        if (broken != null) {
            throw new IOException("ledger is unusable after an earlier write failure: " + broken.getMessage(), broken);
        }
        if (entries.containsKey(entry.idempotencyKey())) {
            throw new IllegalStateException("idempotency key " + entry.idempotencyKey() + " is already recorded");
        }
        ByteBuffer record = record(entry);
        try {
            long at = write(channel, end, record);
            channel.force(true);
            end = at;
        } catch (IOException e) {
            // A half-written record would be read back as torn; cut it so later appends follow good data.
            try {
                channel.truncate(end);
                channel.force(true);
            } catch (IOException again) {
                broken = again;
            }
            throw e;
        }
        entries.put(entry.idempotencyKey(), entry);
        records++;
        if (records > COMPACT_ABOVE && records > 2 * live()) {
            try {
                compact();
            } catch (IOException e) {
                // The entry is recorded in the old file, which stays whole; the next start compacts it.
                LOG.warn("ledger compaction failed, keeping the file as it is: {}", e.getMessage());
            }
        }
    }

    /**
     * Drops the entries past the retention and rewrites the file with the others: to
     * {@code FILE.compact}, forced, then renamed over the ledger and the directory forced.
     */
    synchronized void compact() throws IOException {
        long started = System.nanoTime();
        int before = entries.size();
        long now = clock.millis();
        entries.values().removeIf(e -> now - e.recordedAt() > RETENTION.toMillis());
        Path tmp = compactFile(file);
        long at;
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            at = write(out, 0, ByteBuffer.wrap(HEADER));
            for (Entry entry : entries.values()) {
                at = write(out, at, record(entry));
            }
            out.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        syncDirectory(file.toAbsolutePath().getParent());
        channel.close();
        channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        end = at;
        records = entries.size();
        firstFormat = false;
        LOG.info("ledger compacted: kept {} of {} entries in {} ms", entries.size(), before,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /** Records in the file, live or not (for tests of when compaction runs). */
    synchronized int records() {
        return records;
    }

    private int live() {
        long now = clock.millis();
        return (int) entries.values().stream().filter(e -> now - e.recordedAt() <= RETENTION.toMillis()).count();
    }

    private ByteBuffer record(Entry entry) throws IOException {
        byte[] body = json.write(entry);
        if (body.length > MAX_BODY) {
            throw new IOException("ledger entry of " + body.length + " bytes is larger than " + MAX_BODY);
        }
        CRC32C crc = new CRC32C();
        crc.update(body);
        ByteBuffer record = ByteBuffer.allocate(RECORD_HEADER + body.length);
        record.putInt(body.length).putInt((int) crc.getValue()).put(body).flip();
        return record;
    }

    private static long write(FileChannel out, long position, ByteBuffer bytes) throws IOException {
        long at = position;
        while (bytes.hasRemaining()) {
            at += out.write(bytes, at);
        }
        return at;
    }

    private static Path compactFile(Path file) {
        return file.resolveSibling(file.getFileName() + ".compact");
    }

    private static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        channel.close();
    }

    private Replay load() throws IOException {
        long size = channel.size();
        if (size < HEADER.length) {
            // New, or a crash before the header reached the disk: nothing can have been recorded yet.
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(HEADER), 0);
            channel.force(true);
            end = HEADER.length;
            return new Replay(0, size);
        }
        ByteBuffer header = ByteBuffer.allocate(HEADER.length);
        readFully(header, 0);
        firstFormat = Arrays.equals(header.array(), FIRST_HEADER);
        if (!firstFormat && !Arrays.equals(header.array(), HEADER)) {
            throw new LedgerCorruptException("not a ledger file (bad header)");
        }
        long at = HEADER.length;
        int count = 0;
        while (at < size) {
            if (size - at < RECORD_HEADER) {
                return cut(at, size, count);
            }
            ByteBuffer head = ByteBuffer.allocate(RECORD_HEADER);
            readFully(head, at);
            int length = head.getInt(0);
            int checksum = head.getInt(4);
            if (length <= 0 || length > MAX_BODY) {
                if (allZero(at, size)) {
                    return cut(at, size, count);
                }
                throw new LedgerCorruptException("record at offset " + at + " has an impossible length " + length);
            }
            long next = at + RECORD_HEADER + length;
            if (next > size) {
                return cut(at, size, count);
            }
            ByteBuffer body = ByteBuffer.allocate(length);
            readFully(body, at + RECORD_HEADER);
            CRC32C crc = new CRC32C();
            crc.update(body.array());
            if ((int) crc.getValue() != checksum) {
                if (next == size) {
                    return cut(at, size, count);
                }
                throw new LedgerCorruptException("record at offset " + at + " fails its checksum and is not the last one");
            }
            Entry entry;
            try {
                entry = firstFormat ? carriedOver(json.read(body.array(), FirstEntry.class)) : json.read(body.array(), Entry.class);
            } catch (ProtocolJson.PayloadException e) {
                throw new LedgerCorruptException("record at offset " + at + " does not decode: " + e.getMessage());
            }
            entries.put(entry.idempotencyKey(), entry);
            count++;
            records++;
            at = next;
        }
        end = at;
        return new Replay(count, 0);
    }

    private Entry carriedOver(FirstEntry first) {
        return new Entry(first.idempotencyKey(), SHA256 + first.envelopeDigest(), clock.millis(), first.result());
    }

    private Replay cut(long at, long size, int count) throws IOException {
        channel.truncate(at);
        channel.force(true);
        end = at;
        return new Replay(count, size - at);
    }

    private boolean allZero(long from, long size) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
        long at = from;
        while (at < size) {
            chunk.clear();
            int n = channel.read(chunk, at);
            if (n <= 0) {
                break;
            }
            for (int i = 0; i < n; i++) {
                if (chunk.get(i) != 0) {
                    return false;
                }
            }
            at += n;
        }
        return true;
    }

    private void readFully(ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, at);
            if (n < 0) {
                throw new LedgerCorruptException("unexpected end of ledger at offset " + at);
            }
            at += n;
        }
        buffer.flip();
    }

    private static void syncDirectory(Path dir) {
        // Makes the new file's directory entry durable; not every platform can open a directory.
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Best effort only: on Linux this succeeds; elsewhere the file's own fsyncs remain.
        }
    }
}
