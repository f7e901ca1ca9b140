package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * How large main code may grow (docs/design/architecture.md, "Rules, each checked by a test"): no
 * main class over {@value #MOST_LINES} lines, and no module over a quarter of all main lines. A
 * longer class does more than one thing to be read at once; a module that large is where the next
 * split belongs. Lines as {@code wc -l} counts them, over every module's {@code src/main/java}.
 */
class SourceSizeTest {

    static final int MOST_LINES = 400;

    /** Lines of each main class, by "module:File.java". */
    static Map<String, Integer> lines;

    @BeforeAll
    static void countMainLines() throws IOException {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("docs/design/architecture.md"))) {
            root = root.getParent();
        }
        lines = new TreeMap<>();
        for (Path module : modules(root)) {
            String name = root.relativize(module).toString();
            try (Stream<Path> files = Files.walk(module.resolve("src/main/java"))) {
                files.filter(f -> f.toString().endsWith(".java"))
                        .forEach(f -> lines.merge(name + ":" + f.getFileName(), wcLines(f), Math::max));
            }
        }
    }

    @Test
    void noMainClassIsOver400Lines() {
        List<String> problems = new ArrayList<>();
        lines.forEach((file, n) -> {
            if (n > MOST_LINES) {
                problems.add(file + " has " + n + " lines, over " + MOST_LINES + ": split it");
            }
        });
        assertThat(problems).as("main classes over " + MOST_LINES + " lines (docs/design/architecture.md)").isEmpty();
    }

    @Test
    void noModuleHoldsMoreThanAQuarterOfTheMainCode() {
        Map<String, Integer> byModule = new TreeMap<>();
        lines.forEach((file, n) -> byModule.merge(file.substring(0, file.indexOf(':')), n, Integer::sum));
        int all = byModule.values().stream().mapToInt(Integer::intValue).sum();
        assertThat(byModule).as("modules found").containsKeys("executor-api", "runner-core", "executor-node/node-agent");
        assertThat(byModule).allSatisfy((module, n) ->
                assertThat(n * 4).as(module + " has " + n + " of " + all + " main lines").isLessThanOrEqualTo(all));
    }

    /** Every module of the build: each directory at the top and under executor-node with a src/main/java. */
    private static List<Path> modules(Path root) throws IOException {
        List<Path> modules = new ArrayList<>();
        for (Path parent : List.of(root, root.resolve("executor-node"))) {
            try (Stream<Path> children = Files.list(parent)) {
                children.filter(c -> Files.isDirectory(c.resolve("src/main/java"))).sorted().forEach(modules::add);
            }
        }
        return modules;
    }

    /** Line breaks, as {@code wc -l} counts them. */
    private static int wcLines(Path file) {
        try {
            int n = 0;
            for (byte b : Files.readAllBytes(file)) {
                if (b == '\n') {
                    n++;
                }
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
