package dev.knotless.checkout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** One entry of a tree object: {@code <octal mode> SP <name> NUL <raw id>}. */
record TreeEntry(int mode, String name, String id) {

    /** A file git checks out as a regular file (0644 or 0755), not a symlink, directory or submodule. */
    boolean regularFile() {
        return (mode & 0170000) == 0100000;
    }

    static List<TreeEntry> parse(byte[] tree, int idBytes) throws IOException {
        List<TreeEntry> entries = new ArrayList<>();
        int i = 0;
        while (i < tree.length) {
            int space = indexOf(tree, (byte) ' ', i);
            int nul = indexOf(tree, (byte) 0, space + 1);
            if (space < 0 || nul < 0 || nul + idBytes >= tree.length) {
                throw new IOException("git cat-file gave a malformed tree object");
            }
            int mode = Integer.parseInt(new String(tree, i, space - i, StandardCharsets.US_ASCII), 8);
            String name = new String(tree, space + 1, nul - space - 1, StandardCharsets.UTF_8);
            String id = HexFormat.of().formatHex(tree, nul + 1, nul + 1 + idBytes);
            entries.add(new TreeEntry(mode, name, id));
            i = nul + 1 + idBytes;
        }
        return entries;
    }

    private static int indexOf(byte[] bytes, byte b, int from) {
        for (int i = Math.max(0, from); i < bytes.length; i++) {
            if (bytes[i] == b) {
                return i;
            }
        }
        return -1;
    }
}
