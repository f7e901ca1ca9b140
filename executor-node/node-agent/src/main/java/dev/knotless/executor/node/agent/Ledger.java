package dev.knotless.executor.node.agent;

import dev.knotless.executor.node.protocol.Names;
import dev.knotless.executor.node.protocol.ProtocolJson;
import dev.knotless.executor.node.protocol.Result;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * The durable idempotency ledger: which idempotency key ran which envelope, and what it produced.
 *
 * <p>An append-only file: an 8-byte header, then records of {@code length (u32) | crc32c (u32) |
 * body}, body being the entry as canonical JSON. Each append is one write followed by
 * {@code FileChannel.force}, so a crash can only tear the last record. On open the file is replayed;
 * a torn last record (running past the end, a bad checksum at the very end, or zero fill) is dropped
 * and cut off. Damage anywhere else is {@link LedgerCorruptException}: refusing to start is safer
 * than forgetting what ran.
 */
public final class Ledger implements Closeable {

    private static final byte[] HEADER = "KNLEDG01".getBytes(StandardCharsets.US_ASCII);
    private static final int RECORD_HEADER = 8;
    private static final int MAX_BODY = 64 * 1024 * 1024;

    public record Entry(String idempotencyKey, String envelopeDigest, Result result) {
        public Entry {
            Names.idempotencyKey(idempotencyKey);
            if (envelopeDigest == null || !envelopeDigest.matches("[0-9a-f]{64}")) {
                throw new IllegalArgumentException("envelopeDigest must be 64 lower-case hex digits");
            }
            if (result == null) {
                throw new IllegalArgumentException("result is missing");
            }
        }
    }

    /** What replay found, for the agent's start-up line. */
    public record Replay(int entries, long droppedTornBytes) {}

    private final FileChannel channel;
    private final ProtocolJson json;
    private final Map<String, Entry> entries = new HashMap<>();
    private final Replay replay;
    private long end;
    private @Nullable IOException broken;

    private Ledger(FileChannel channel, ProtocolJson json) throws IOException {
        this.channel = channel;
        this.json = json;
        this.replay = load();
    }

    public static Ledger open(Path file, ProtocolJson json) throws IOException {
        boolean created = !Files.exists(file);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            if (created) {
                syncDirectory(file.toAbsolutePath().getParent());
            }
            return new Ledger(channel, json);
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

    /** Writes the entry and forces it to disk before returning; only then does it count as recorded. */
    public synchronized void append(Entry entry) throws IOException {
        if (broken != null) {
            throw new IOException("ledger is unusable after an earlier write failure: " + broken.getMessage(), broken);
        }
        if (entries.containsKey(entry.idempotencyKey())) {
            throw new IllegalStateException("idempotency key " + entry.idempotencyKey() + " is already recorded");
        }
        byte[] body = json.write(entry);
        if (body.length > MAX_BODY) {
            throw new IOException("ledger entry of " + body.length + " bytes is larger than " + MAX_BODY);
        }
        CRC32C crc = new CRC32C();
        crc.update(body);
        ByteBuffer record = ByteBuffer.allocate(RECORD_HEADER + body.length);
        record.putInt(body.length).putInt((int) crc.getValue()).put(body).flip();
        try {
            long at = end;
            while (record.hasRemaining()) {
                at += channel.write(record, at);
            }
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
        if (!Arrays.equals(header.array(), HEADER)) {
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
                entry = json.read(body.array(), Entry.class);
            } catch (ProtocolJson.PayloadException e) {
                throw new LedgerCorruptException("record at offset " + at + " does not decode: " + e.getMessage());
            }
            entries.put(entry.idempotencyKey(), entry);
            count++;
            at = next;
        }
        end = at;
        return new Replay(count, 0);
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
