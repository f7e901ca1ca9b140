package dev.knotless.checkout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A commit's whole history as a checkout's {@code .git} holds it when a workflow asks for it
 * ({@code actions/checkout} with {@code fetch-depth: 0}): one pack of every object the commit
 * reaches and of the tags that point into its history ({@code git tag --merged}), with its index,
 * and a {@code packed-refs} naming those tags, so that {@code git log}, {@code git describe
 * --tags} and {@code git merge-base} work in the run. Made by git from the mirror into a
 * temporary directory, which {@link #close} removes.
 */
final class HistoryPack implements AutoCloseable {

    /** Tags taken at most: a repository with more gets the newest by name order's first this many. */
    static final int MOST_TAGS = 10_000;

    private final Path directory;
    private final Path pack;
    private final Path index;
    private final byte[] packedRefs;

    private HistoryPack(Path directory, Path pack, Path index, byte[] packedRefs) {
        this.directory = directory;
        this.pack = pack;
        this.index = index;
        this.packedRefs = packedRefs;
    }

    /** Packs {@code sha}'s history in {@code mirror}. */
    static HistoryPack of(Path mirror, String sha) throws IOException {
        Path directory = Files.createTempDirectory("knotless-history-");
        try {
            List<String> tags = mergedTags(mirror, sha);
            Path revs = directory.resolve("revs");
            List<String> lines = new ArrayList<>();
            lines.add(sha);
            tags.forEach(tag -> lines.add("refs/tags/" + tag));
            Files.write(revs, lines, StandardCharsets.UTF_8);
            Path out = directory.resolve("out");
            Path err = directory.resolve("err");
            Process git = Git.command(mirror, List.of("pack-objects", "--revs", "-q", directory.resolve("pack").toString()))
                    .redirectInput(revs.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            try {
                if (!git.waitFor(Git.LOCAL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                    Git.kill(git);
                    throw new CheckoutException("git pack-objects of " + sha + "'s history took longer than "
                            + Git.LOCAL_TIMEOUT.toMinutes() + " min");
                }
            } catch (InterruptedException e) {
                Git.kill(git);
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while git packed " + sha + "'s history");
            }
            String name = Files.readString(out).strip();
            if (git.exitValue() != 0 || !name.matches("[0-9a-f]{40}|[0-9a-f]{64}")) {
                throw new CheckoutException("git pack-objects of " + sha + "'s history failed: "
                        + Git.oneLine(Files.readString(err)));
            }
            return new HistoryPack(directory, directory.resolve("pack-" + name + ".pack"),
                    directory.resolve("pack-" + name + ".idx"), packedRefs(mirror, tags));
        } catch (IOException | RuntimeException e) {
            remove(directory);
            throw e;
        }
    }

    /** The pack's file name under {@code objects/pack/}. */
    String packName() {
        return pack.getFileName().toString();
    }

    String indexName() {
        return index.getFileName().toString();
    }

    Path pack() {
        return pack;
    }

    Path index() {
        return index;
    }

    byte[] packedRefs() {
        return packedRefs.clone();
    }

    @Override
    public void close() {
        remove(directory);
    }

    private static List<String> mergedTags(Path mirror, String sha) throws IOException {
        Git.Result result = Git.run(mirror, Git.LOCAL_TIMEOUT, List.of("tag", "--merged", sha));
        if (!result.ok()) {
            throw new CheckoutException("cannot list the tags in " + sha + "'s history: " + Git.oneLine(result.stderr()));
        }
        Set<String> tags = new LinkedHashSet<>();
        for (String line : result.text().split("\n")) {
            if (!line.isBlank() && Mirror.isRefName("tags/" + line.strip()) && tags.size() < MOST_TAGS) {
                tags.add(line.strip());
            }
        }
        return List.copyOf(tags);
    }

    /** {@code packed-refs} for {@code tags}: each tag's object, and under an annotated one the commit it names. */
    private static byte[] packedRefs(Path mirror, List<String> tags) throws IOException {
        StringBuilder refs = new StringBuilder("# pack-refs with: peeled fully-peeled sorted \n");
        if (!tags.isEmpty()) {
            Git.Result shown = Git.run(mirror, Git.LOCAL_TIMEOUT, List.of("show-ref", "--tags", "-d"));
            Set<String> wanted = new java.util.HashSet<>(tags);
            List<String[]> lines = new ArrayList<>();
            for (String line : shown.text().split("\n")) {
                String[] parts = line.strip().split(" ", 2);
                if (parts.length == 2 && parts[1].startsWith("refs/tags/")) {
                    String tag = parts[1].substring("refs/tags/".length());
                    boolean peeled = tag.endsWith("^{}");
                    if (wanted.contains(peeled ? tag.substring(0, tag.length() - 3) : tag)) {
                        lines.add(new String[] {parts[0], peeled ? tag.substring(0, tag.length() - 3) : tag,
                                peeled ? "^" : ""});
                    }
                }
            }
            lines.sort(Comparator.<String[], String>comparing(l -> l[1]).thenComparing(l -> l[2]));
            for (String[] line : lines) {
                refs.append(line[2].isEmpty() ? line[0] + " refs/tags/" + line[1] : "^" + line[0]).append('\n');
            }
        }
        return refs.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void remove(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a temporary directory left behind costs a little space, nothing more
        }
    }
}
