package dev.knotless.tar;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Where a symlink leads, worked out the way the kernel walks it, over what is really on disk
 * under the root: each segment in turn, a {@code ..} leaving the real directory reached so far,
 * and every link met on the way followed (link to link, link to {@code .}, {@code a/..} through a
 * link). Not lexical: {@code b -> a/..} with {@code a -> .} leaves the root although its text
 * does not. A segment not on disk yet counts as a plain directory, and callers check again once
 * the archive is done, when later entries may have turned it into a link.
 */
record LinkResolution(Path root) {

    /** Links followed in one resolution before it counts as a loop (the kernel's limit). */
    static final int MAX_HOPS = 40;

    /**
     * Whether a link in {@code linkDir} (a real directory under the root) with {@code target}
     * resolves inside the root at every step, in at most {@link #MAX_HOPS} links.
     */
    boolean staysInside(Path linkDir, String target) throws IOException {
        List<String> reached = new ArrayList<>();
        for (Path part : root.relativize(linkDir)) {
            if (!part.toString().isEmpty()) {
                reached.add(part.toString());
            }
        }
        Deque<String> pending = new ArrayDeque<>();
        if (!push(pending, target)) {
            return false;
        }
        int hops = 0;
        while (!pending.isEmpty()) {
            String segment = pending.pop();
            if (segment.isEmpty() || segment.equals(".")) {
                continue;
            }
            if (segment.equals("..")) {
                if (reached.isEmpty()) {
                    return false;
                }
                reached.removeLast();
                continue;
            }
            Path next = root.resolve(String.join("/", reached)).resolve(segment);
            if (Files.isSymbolicLink(next)) {
                if (++hops > MAX_HOPS || !push(pending, Files.readSymbolicLink(next).toString())) {
                    return false;
                }
            } else {
                reached.add(segment);
            }
        }
        return true;
    }

    /** Puts {@code target}'s segments first in line; false for an absolute target. */
    private static boolean push(Deque<String> pending, String target) {
        if (target.startsWith("/")) {
            return false;
        }
        String[] segments = target.split("/");
        for (int i = segments.length - 1; i >= 0; i--) {
            pending.push(segments[i]);
        }
        return true;
    }
}
