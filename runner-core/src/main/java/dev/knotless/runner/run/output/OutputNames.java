package dev.knotless.runner.run.output;

import dev.knotless.checks.Output;
import dev.knotless.runner.run.record.RunMasking;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Output files whose names hold a granted value are moved to their masked name, so that neither
 * the check nor a file name under the state directory shows it (a step can name a file after a
 * secret as easily as print it). Directories the move leaves empty are removed.
 */
final class OutputNames {

    private OutputNames() {}

    static List<Output> masked(Path dir, List<Output> outputs, RunMasking masking) throws IOException {
        List<Output> result = new ArrayList<>(outputs.size());
        for (Output o : outputs) {
            String name = masking.line(o.name());
            if (name.equals(o.name())) {
                result.add(o);
                continue;
            }
            Path from = Path.of(o.path());
            Path to = free(dir, name);
            Files.createDirectories(to.getParent());
            Files.move(from, to);
            for (Path d = from.getParent(); d != null && d.startsWith(dir) && !d.equals(dir) && isEmpty(d); d = d.getParent()) {
                Files.delete(d);
            }
            result.add(new Output(dir.relativize(to).toString(), o.mediaType(), o.bytes(), to.toAbsolutePath().toString()));
        }
        return result;
    }

    /** {@code name} under {@code dir}, or with {@code -2}, {@code -3}… when another output has it. */
    private static Path free(Path dir, String name) {
        Path p = dir.resolve(name).normalize();
        for (int n = 2; Files.exists(p); n++) {
            p = dir.resolve(name + "-" + n).normalize();
        }
        return p;
    }

    private static boolean isEmpty(Path d) throws IOException {
        try (var entries = Files.list(d)) {
            return entries.findAny().isEmpty();
        }
    }
}
