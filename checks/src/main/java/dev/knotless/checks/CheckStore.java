package dev.knotless.checks;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Checks on the runner host, one JSON file each under {@code <state>/checks/}, with the log at
 * {@code <state>/logs/<id>.log}, the steps' summary beside it at {@code <state>/logs/<id>.summary.md}
 * and outputs under {@code <state>/outputs/<id>/}.
 *
 * <p>A save is durable before it returns (write a temp file, fsync, atomic rename, fsync the
 * directory), so a kill -9 at any moment leaves either the old or the new record, never half; a
 * save that fails (a full disk) removes its temp file.
 */
public final class CheckStore {

    private final Path checks;
    private final Path logs;
    private final Path outputs;
    private final CheckJson json = new CheckJson();

    public CheckStore(Path stateDir) {
        this.checks = stateDir.resolve("checks");
        this.logs = stateDir.resolve("logs");
        this.outputs = stateDir.resolve("outputs");
    }

    public Path logPath(String id) {
        return logs.resolve(id + ".log");
    }

    /** Where run {@code id}'s steps' summary is written, when one hands one back: beside its log, never among its outputs. */
    public Path summaryPath(String id) {
        return logs.resolve(id + ".summary.md");
    }

    public Path outputDir(String id) {
        return outputs.resolve(id);
    }

    public void save(Check check) throws IOException {
        Files.createDirectories(checks);
        Path target = checks.resolve(check.id() + ".json");
        Path temp = checks.resolve("." + check.id() + ".json.tmp");
        try {
            Files.write(temp, json.pretty(check));
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            // a full disk stops the write half way: the old record stays, and no half of the new one
            try {
                Files.deleteIfExists(temp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        try (FileChannel dir = FileChannel.open(checks, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException ignored) {
            // Some file systems cannot fsync a directory; the rename is still atomic.
        }
    }

    /** The space held for run {@code id}'s last record ({@link SpaceReserve}). */
    public SpaceReserve reserve(String id) {
        return new SpaceReserve(checks.resolve("." + id + ".reserve"));
    }

    public Optional<Check> load(String id) throws IOException {
        Path file = checks.resolve(id + ".json");
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        return Optional.of(json.read(Files.readAllBytes(file)));
    }

    /** Every stored check, newest first. */
    public List<Check> list() throws IOException {
        List<Check> all = new ArrayList<>();
        if (!Files.isDirectory(checks)) {
            return all;
        }
        try (Stream<Path> files = Files.list(checks)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.getFileName().toString().endsWith(".json")
                    && !p.getFileName().toString().startsWith("."))::iterator) {
                all.add(json.read(Files.readAllBytes(f)));
            }
        }
        all.sort(Comparator.comparing(Check::startedAt, Comparator.nullsLast(Comparator.reverseOrder())));
        return all;
    }
}
