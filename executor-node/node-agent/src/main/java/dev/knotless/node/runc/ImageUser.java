package dev.knotless.node.runc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Resolves an image config's {@code User} ({@code ""}, {@code uid}, {@code uid:gid}, {@code name},
 * {@code name:group}, mixed) to numbers, reading {@code /etc/passwd} and {@code /etc/group} of the
 * rootfs. Those files are the image's: they are read only if they and {@code /etc} are not symlinks,
 * since a symlink would be resolved on the host, not in the container.
 */
public final class ImageUser {

    private ImageUser() {}

    public static RunAs resolve(String user, Path rootfs) {
        if (user == null || user.isEmpty()) {
            return RunAs.ROOT;
        }
        String[] parts = user.split(":", -1);
        if (parts.length > 2 || parts[0].isEmpty() || (parts.length == 2 && parts[1].isEmpty())) {
            throw new IllegalArgumentException("image user '" + user + "' is not USER[:GROUP]");
        }
        long uid;
        long primaryGid;
        if (parts[0].matches("[0-9]{1,10}")) {
            uid = Long.parseLong(parts[0]);
            primaryGid = entry(rootfs, "passwd", 2, parts[0]).map(f -> Long.parseLong(f.get(3))).orElse(0L);
        } else {
            List<String> pw = entry(rootfs, "passwd", 0, parts[0])
                    .orElseThrow(() -> new IllegalArgumentException("image user '" + parts[0] + "' is not in the image's /etc/passwd"));
            uid = Long.parseLong(pw.get(2));
            primaryGid = Long.parseLong(pw.get(3));
        }
        if (parts.length == 1) {
            return new RunAs(uid, primaryGid);
        }
        if (parts[1].matches("[0-9]{1,10}")) {
            return new RunAs(uid, Long.parseLong(parts[1]));
        }
        List<String> gr = entry(rootfs, "group", 0, parts[1])
                .orElseThrow(() -> new IllegalArgumentException("image group '" + parts[1] + "' is not in the image's /etc/group"));
        return new RunAs(uid, Long.parseLong(gr.get(2)));
    }

    /** The first line of {@code /etc/FILE} whose field {@code index} is {@code value}, split on ':'. */
    private static Optional<List<String>> entry(Path rootfs, String file, int index, String value) {
        Path etc = rootfs.resolve("etc");
        Path path = etc.resolve(file);
        if (!Files.isDirectory(etc, LinkOption.NOFOLLOW_LINKS) || !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return Optional.empty();
        }
        try {
            for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
                List<String> fields = List.of(line.split(":", -1));
                if (fields.size() >= 4 && fields.get(index).equals(value) && fields.get(2).matches("[0-9]{1,10}")
                        && (!file.equals("passwd") || fields.get(3).matches("[0-9]{1,10}"))) {
                    return Optional.of(fields);
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the image's /etc/" + file + ": " + e.getMessage());
        }
    }
}
