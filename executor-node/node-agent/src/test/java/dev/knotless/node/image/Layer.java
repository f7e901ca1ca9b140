package dev.knotless.node.image;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/** Builds crafted layer tars, entry by entry, in the given order. */
final class Layer {

    static final Instant MTIME = Instant.parse("2024-02-03T04:05:06Z");

    private record Item(TarArchiveEntry entry, byte[] content) {}

    private final List<Item> items = new ArrayList<>();

    Layer dir(String name, int mode) {
        TarArchiveEntry e = new TarArchiveEntry(name.endsWith("/") ? name : name + "/");
        e.setMode(040000 | mode);
        return add(e, null);
    }

    Layer file(String name, String content) {
        return file(name, content, 0644, 0, 0);
    }

    Layer file(String name, String content, int mode, int uid, int gid) {
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setMode(0100000 | mode);
        e.setIds(uid, gid);
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        e.setSize(bytes.length);
        return add(e, bytes);
    }

    Layer symlink(String name, String target) {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
        e.setLinkName(target);
        return add(e, null);
    }

    Layer hardlink(String name, String target) {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_LINK);
        e.setLinkName(target);
        return add(e, null);
    }

    Layer charDevice(String name) {
        TarArchiveEntry e = new TarArchiveEntry(name, TarConstants.LF_CHR);
        e.setDevMajor(1);
        e.setDevMinor(3);
        return add(e, null);
    }

    /** An entry with exactly this name, bypassing normalisation (for '..' and absolute names). */
    Layer raw(String name, String content) {
        TarArchiveEntry e = new TarArchiveEntry(name, true);
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        e.setSize(bytes.length);
        e.setMode(0100644);
        return add(e, bytes);
    }

    private Layer add(TarArchiveEntry e, byte[] content) {
        e.setModTime(Date.from(MTIME));
        items.add(new Item(e, content));
        return this;
    }

    byte[] tar() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (TarArchiveOutputStream out = new TarArchiveOutputStream(bytes)) {
                out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
                for (Item item : items) {
                    out.putArchiveEntry(item.entry());
                    if (item.content() != null) {
                        out.write(item.content());
                    }
                    out.closeArchiveEntry();
                }
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    byte[] tarGz() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
                gz.write(tar());
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
