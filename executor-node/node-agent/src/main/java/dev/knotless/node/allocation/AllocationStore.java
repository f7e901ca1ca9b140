package dev.knotless.node.allocation;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.executor.RunLayout;
import dev.knotless.node.agent.AllocationRuntime.RuntimeFailure;
import dev.knotless.node.image.Trees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The allocations the node was told to create, on disk: {@code allocations/<id>/} with its
 * {@code allocation.json} record beside the directories the runtime makes there.
 */
final class AllocationStore {

    private final Path allocations;
    private final ObjectMapper json = new ObjectMapper();

    AllocationStore(Path stateDir) throws IOException {
        this.allocations = Files.createDirectories(stateDir.resolve("allocations"));
    }

    /** The allocation's directory (it may not exist yet). */
    Path dir(String id) {
        return allocations.resolve(id);
    }

    /** Makes the allocation's directory and writes its record (atomically: a crash leaves the old one or none). */
    void create(AllocationRecord record) throws IOException {
        Path dir = Files.createDirectories(dir(record.allocation()));
        writeAtomically(dir.resolve("allocation.json"), json.writeValueAsBytes(record));
    }

    Optional<AllocationRecord> find(String id) throws RuntimeFailure {
        Path file = dir(id).resolve("allocation.json");
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(json.readValue(file.toFile(), AllocationRecord.class));
        } catch (IOException e) {
            throw new RuntimeFailure("allocation " + id + " has an unreadable record: " + e.getMessage(), e);
        }
    }

    AllocationRecord require(String id) throws RuntimeFailure {
        return find(id).orElseThrow(() -> new RuntimeFailure("no allocation " + id + " on this node"));
    }

    /** The ids that have a record, sorted. */
    List<String> ids() throws IOException {
        try (var entries = Files.list(allocations)) {
            return entries.filter(p -> Files.isRegularFile(p.resolve("allocation.json")))
                    .map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** {@code /steps} or a directory under it, as a host directory of the allocation. */
    Optional<Path> stepsDir(String id, String path) {
        String steps = RunLayout.STEPS;
        if (!path.equals(steps) && !path.startsWith(steps + "/")) {
            return Optional.empty();
        }
        Path dir = dir(id).resolve("steps");
        String rest = path.substring(steps.length());
        return Optional.of(rest.isEmpty() ? dir : dir.resolve(rest.substring(1)));
    }

    /** Where step {@code step} keeps its output files and its end. */
    Path stepOutput(String id, int step) {
        return dir(id).resolve("step-output").resolve(Integer.toString(step));
    }

    /** The numbers of the steps the allocation has output directories for, in ascending order. */
    List<Integer> stepNumbers(String id) throws IOException {
        Path dir = dir(id).resolve("step-output");
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> steps = Files.list(dir)) {
            return steps.map(p -> p.getFileName().toString()).filter(n -> n.matches("[1-9][0-9]{0,8}"))
                    .map(Integer::valueOf).sorted().toList();
        }
    }

    /** Removes the allocation's directory and record; nothing if there is none. */
    void delete(String id) throws IOException {
        Trees.delete(dir(id));
    }

    static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, bytes);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
