package dev.knotless.runner.run.transfer;

import dev.knotless.secrets.Masker;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Watches a cache layer's tar stream, as it is saved, for the values granted in the run, in every
 * form the masker knows ({@link Masker#finder}): every byte passes the finder once, headers
 * included, so a value in a file's content (across any number of tar blocks), its name, a link
 * target or a PAX record is found. Streaming: it holds one header block and at most {@value
 * #MAX_META} bytes of a long-name record, never the layer.
 *
 * <p>The tar structure is followed only to say which entry held a value (by name, which the log
 * masks in turn); finding a value does not depend on it, so a malformed archive is still scanned
 * whole. A value in a long-name or PAX record is put on the entry the record names.
 *
 * <p>One stream, one thread.
 */
final class LayerScan {

    static final int BLOCK = 512;
    /** Long-name and PAX records are read this far for the entry's name; the finder sees all of them. */
    static final int MAX_META = 1 << 16;
    /** How many holding entries are named; the count goes on. */
    static final int MAX_NAMED = 10;

    private final Masker.Finder finder;
    private final byte[] header = new byte[BLOCK];
    private int headerFill;
    /** Bytes of the current entry's data, padding included, still to come; 0 while a header is read. */
    private long dataLeft;
    /** Of those, the bytes that are content (not padding). */
    private long contentLeft;
    /** The entry whose data is passing; null for a long-name or PAX record. */
    private String current;
    private char recordType;
    private final ByteArrayOutputStream record = new ByteArrayOutputStream();
    private boolean hitInHeader;
    private boolean hitInRecord;
    private String recordName;
    private final Set<String> named = new LinkedHashSet<>();
    private long holders;
    /** Whether the finder found anything, whichever entry (if any) it is put on. */
    private boolean anyHit;
    private String lastHeld;

    LayerScan(Masker masker) {
        this.finder = masker.finder();
    }

    /** {@code in}, unchanged, with every byte read from it scanned. */
    InputStream watch(InputStream in) {
        return new FilterInputStream(in) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0) {
                    see(new byte[] {(byte) b}, 0, 1);
                }
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                int n = super.read(b, off, len);
                if (n > 0) {
                    see(b, off, n);
                }
                return n;
            }

            @Override
            public long skip(long n) throws IOException {
                byte[] buffer = new byte[8192];
                int read = read(buffer, 0, (int) Math.min(n, buffer.length));
                return Math.max(read, 0);
            }
        };
    }

    /** Whether any value was found. */
    boolean found() {
        return anyHit;
    }

    /**
     * The entries that held a value, as paths under {@code dir} (the downloaded directory its
     * entries are relative to), at most {@value #MAX_NAMED}, and how many more.
     */
    String holders(String dir) {
        List<String> names = named.stream().map(n -> under(dir, n)).toList();
        if (names.isEmpty()) {
            return anyHit ? "the archive (outside any entry it names)" : "";
        }
        long more = holders - names.size();
        return String.join(", ", names) + (more > 0 ? " and " + more + " more" : "");
    }

    /** Scans the bytes, then follows them through the archive's blocks. */
    void see(byte[] b, int off, int len) {
        while (len > 0) {
            int n;
            if (dataLeft == 0) {
                n = Math.min(len, BLOCK - headerFill);
                System.arraycopy(b, off, header, headerFill, n);
                boolean hit = finder.feed(b, off, n);
                anyHit |= hit;
                hitInHeader |= hit;
                headerFill += n;
                if (headerFill == BLOCK) {
                    headerFill = 0;
                    onHeader();
                }
            } else {
                n = (int) Math.min(len, dataLeft);
                boolean hit = finder.feed(b, off, n);
                anyHit |= hit;
                int content = (int) Math.min(n, contentLeft);
                if (current == null) {
                    hitInRecord |= hit;
                    record.write(b, off, Math.max(0, Math.min(content, MAX_META - record.size())));
                } else if (hit) {
                    held(current);
                }
                contentLeft -= content;
                dataLeft -= n;
                if (dataLeft == 0 && current == null) {
                    onRecordEnd();
                }
            }
            off += n;
            len -= n;
        }
    }

    private void onHeader() {
        boolean hit = hitInHeader;
        hitInHeader = false;
        if (isZero(header)) {
            return; // the archive's end, or padding after it
        }
        char type = (char) (header[156] & 0xff);
        long size = size();
        if (type == 'x' || type == 'L' || type == 'K' || type == 'g') {
            current = null;
            recordType = type;
            record.reset();
            hitInRecord |= hit;
            start(size, size);
            if (dataLeft == 0) {
                onRecordEnd();
            }
            return;
        }
        String name = recordName != null ? recordName : name();
        recordName = null;
        if (hit || hitInRecord) {
            held(name);
        }
        hitInRecord = false;
        current = name;
        boolean hasData = "123456".indexOf(type) < 0;
        start(hasData ? size : 0, size);
    }

    private void start(long data, long content) {
        dataLeft = (data + BLOCK - 1) / BLOCK * BLOCK;
        contentLeft = Math.min(content, dataLeft);
    }

    private void onRecordEnd() {
        String text = record.toString(StandardCharsets.UTF_8);
        if (recordType == 'L') {
            int nul = text.indexOf('\0');
            recordName = nul >= 0 ? text.substring(0, nul) : text;
        } else if (recordType == 'x') {
            // PAX records: "<length> <key>=<value>\n"
            for (String line : text.split("\n")) {
                int eq = line.indexOf(" path=");
                if (eq >= 0) {
                    recordName = line.substring(eq + " path=".length());
                }
            }
        }
        record.reset();
    }

    private static String under(String dir, String name) {
        String relative = name;
        while (relative.startsWith("./") || relative.startsWith("/")) {
            relative = relative.substring(relative.startsWith("/") ? 1 : 2);
        }
        return relative.isEmpty() || relative.equals(".") ? dir : dir.replaceAll("/+$", "") + "/" + relative;
    }

    private void held(String name) {
        if (name.equals(lastHeld) || named.contains(name)) {
            return;
        }
        lastHeld = name;
        holders++;
        if (named.size() < MAX_NAMED) {
            named.add(name);
        }
    }

    private String name() {
        String name = text(0, 100);
        boolean ustar = header[257] == 'u' && header[258] == 's' && header[259] == 't' && header[260] == 'a'
                && header[261] == 'r';
        String prefix = ustar ? text(345, 155) : "";
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    private String text(int from, int length) {
        int end = from;
        while (end < from + length && header[end] != 0) {
            end++;
        }
        return new String(header, from, end - from, StandardCharsets.UTF_8);
    }

    /** The size field: octal, or base-256 when its first byte's top bit is set (GNU, star). */
    private long size() {
        if ((header[124] & 0x80) != 0) {
            long v = 0;
            for (int i = 125; i < 136; i++) {
                v = v << 8 | (header[i] & 0xff);
            }
            return Math.max(0, v);
        }
        long v = 0;
        for (int i = 124; i < 136; i++) {
            byte c = header[i];
            if (c >= '0' && c <= '7') {
                v = v * 8 + (c - '0');
            } else if (c != ' ' || v != 0) {
                if (c == 0 || c == ' ') {
                    break;
                }
                return 0; // not a number: the finder still sees every byte
            }
        }
        return v;
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
