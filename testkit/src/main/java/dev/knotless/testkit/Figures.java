package dev.knotless.testkit;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A benchmark's headline figures. Each is printed as {@code figure KEY VALUE}; when the bench script
 * asks for it ({@code KNOTLESS_FIGURES=FILE}, which every {@code bench/*} script sets to
 * bench/results/figures.tsv) it is also appended to that file as a row: key, value, the UTC day, the
 * load average then, the command ({@code KNOTLESS_FIGURES_COMMAND}, set by the script), a detail.
 * docs/design/performance.md's table of figures is rendered from that file, the newest row of each
 * key, so what the page says is what a benchmark last printed.
 */
public final class Figures {

    public static final String HEADER = "key\tvalue\tdate\tload\tcommand\tdetail";

    /** One row of the figures file. */
    public record Row(String key, String value, LocalDate date, String load, String command, String detail) {

        public Row {
            if (!key.matches("[a-z0-9][a-z0-9.-]*")) {
                throw new IllegalArgumentException("a figure's key is lower case, digits, '.' and '-': " + key);
            }
            value = field(value);
            load = field(load);
            command = field(command);
            detail = field(detail);
        }

        String line() {
            return String.join("\t", key, value, date.toString(), load, command, detail);
        }

        /** A line of the file; the header and {@code #} comments are not rows. */
        static @Nullable Row parse(String line) {
            if (line.isBlank() || line.startsWith("#") || line.equals(HEADER)) {
                return null;
            }
            String[] f = line.split("\t", -1);
            if (f.length < 5 || f.length > 6) {
                throw new IllegalArgumentException("not a figures row (" + HEADER.replace('\t', ',') + "): " + line);
            }
            return new Row(f[0], f[1], LocalDate.parse(f[2]), f[3], f[4], f.length > 5 ? f[5] : "");
        }

        /** A tab or a line break would split the row. */
        private static String field(String text) {
            return text.replaceAll("[\\t\\r\\n]+", " ").strip();
        }
    }

    private final @Nullable Path file;
    private final String command;
    private final Clock clock;
    private final Supplier<String> load;
    private final PrintStream out;

    Figures(@Nullable Path file, String command, Clock clock, Supplier<String> load, PrintStream out) {
        this.file = file;
        this.command = command;
        this.clock = clock;
        this.load = load;
        this.out = out;
    }

    /** As the bench script set it up: the file and the command from the environment. */
    static Figures fromEnvironment() {
        String file = System.getenv("KNOTLESS_FIGURES");
        String command = System.getenv("KNOTLESS_FIGURES_COMMAND");
        if (command == null || command.isBlank()) {
            command = System.getProperty("sun.java.command", "?");
        }
        return new Figures(file == null || file.isBlank() ? null : Path.of(file), command, Clock.systemUTC(), Bench::loadAverage,
                System.out);
    }

    /** Reports a headline figure: {@code key} such as {@code docker.step-overhead-ratio}, {@code value} such as {@code 0.71×}. */
    public static void report(String key, String value) {
        report(key, value, "");
    }

    /** Reports a headline figure with a detail (the two sides' own numbers, say). */
    public static void report(String key, String value, String detail) {
        fromEnvironment().add(key, value, detail);
    }

    void add(String key, String value, String detail) {
        Row row = new Row(key, value, LocalDate.ofInstant(clock.instant(), ZoneOffset.UTC), load.get(), command, detail);
        out.println("figure " + row.key() + " " + row.value() + (row.detail().isEmpty() ? "" : " (" + row.detail() + ")"));
        if (file == null) {
            return;
        }
        try {
            String text = (Files.exists(file) ? "" : HEADER + "\n") + row.line() + "\n";
            // One write in append mode: benches that end at once do not interleave their rows.
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append the figure to " + file, e);
        }
    }

    /** Every row of a figures file, in the file's order. */
    public static List<Row> read(Path file) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            Row row = Row.parse(line);
            if (row != null) {
                rows.add(row);
            }
        }
        return rows;
    }

    /** A ratio as the figures show it: {@code 0.71×}. */
    public static String ratio(double ratio) {
        return String.format(Locale.ROOT, "%.2f×", ratio);
    }

    /** Whole milliseconds, grouped: {@code 1,050 ms}. */
    public static String millis(double millis) {
        return String.format(Locale.ROOT, "%,.0f ms", millis);
    }
}
