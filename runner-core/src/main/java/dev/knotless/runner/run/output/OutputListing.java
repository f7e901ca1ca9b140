package dev.knotless.runner.run.output;

import dev.knotless.checks.MediaTypes;
import dev.knotless.checks.Output;
import dev.knotless.tar.Printable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The outputs of a run's output directory as the check records them: regular files only, in
 * name order, at most {@code maxListed}, each sniffed for its media type. Nothing here follows a
 * link (a run made them; even one the extractor let stay inside is not an output): links are
 * skipped and named in a notice, as are the files past the cap.
 *
 * @param outputs the outputs recorded
 * @param notices one line each, names printable: links skipped, outputs not listed
 */
record OutputListing(List<Output> outputs, List<String> notices) {

    /** Links named in a notice, at most; the rest are counted. */
    static final int LINKS_NAMED = 20;

    static OutputListing of(Path dir, int maxListed) throws IOException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return new OutputListing(List.of(), List.of());
        }
        List<Path> files = new ArrayList<>();
        List<String> links = new ArrayList<>();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted().toList()) {
                BasicFileAttributes attrs = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (attrs.isSymbolicLink()) {
                    links.add(dir.relativize(p).toString());
                } else if (attrs.isRegularFile()) {
                    files.add(p);
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
        List<String> notices = new ArrayList<>();
        if (!links.isEmpty()) {
            notices.add("outputs: " + links.size() + " symlink(s) not listed (outputs are regular files): "
                    + String.join(", ", links.stream().limit(LINKS_NAMED).map(Printable::name).toList())
                    + (links.size() > LINKS_NAMED ? ", ..." : ""));
        }
        if (files.size() > maxListed) {
            notices.add("outputs: " + (files.size() - maxListed) + " more outputs not listed (the check lists at most "
                    + maxListed + ")");
        }
        List<Output> outputs = new ArrayList<>();
        for (Path file : files.subList(0, Math.min(files.size(), maxListed))) {
            outputs.add(describe(dir, file));
        }
        return new OutputListing(List.copyOf(outputs), List.copyOf(notices));
    }

    private static Output describe(Path dir, Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            byte[] head = in.readNBytes(MediaTypes.SNIFF_BYTES);
            return new Output(dir.relativize(file).toString(), MediaTypes.sniff(head, head.length),
                    Files.size(file), file.toAbsolutePath().toString());
        }
    }
}
