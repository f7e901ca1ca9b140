package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FiguresTest {

    @TempDir
    Path dir;

    @Test
    void aFigureIsPrintedAndAppendedAsARowOfTheUtcDay() throws Exception {
        Path file = dir.resolve("figures.tsv");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        // 23:30 on the 6th in UTC is the 7th east of it: the row says the UTC day.
        Clock clock = Clock.fixed(Instant.parse("2026-12-06T23:30:00Z"), ZoneOffset.ofHours(2));
        Figures figures = new Figures(file, "bench/docker-bench 30 5", clock, () -> "1.42",
                new PrintStream(printed, true, StandardCharsets.UTF_8));

        figures.add("docker.step-overhead-ratio", "0.71×", "112.4 / 159.3 ms");
        figures.add("docker.upload-ratio", "1.32×", "331\t/ 251 MiB/s\n");

        assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo("""
                figure docker.step-overhead-ratio 0.71× (112.4 / 159.3 ms)
                figure docker.upload-ratio 1.32× (331 / 251 MiB/s)
                """);
        assertThat(Files.readString(file)).isEqualTo(Figures.HEADER + "\n"
                + "docker.step-overhead-ratio\t0.71×\t2026-12-06\t1.42\tbench/docker-bench 30 5\t112.4 / 159.3 ms\n"
                + "docker.upload-ratio\t1.32×\t2026-12-06\t1.42\tbench/docker-bench 30 5\t331 / 251 MiB/s\n");
        assertThat(Figures.read(file)).extracting(Figures.Row::key, Figures.Row::value, Figures.Row::date)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("docker.step-overhead-ratio", "0.71×", LocalDate.parse("2026-12-06")),
                        org.assertj.core.groups.Tuple.tuple("docker.upload-ratio", "1.32×", LocalDate.parse("2026-12-06")));
    }

    @Test
    void withoutAFileTheFigureIsOnlyPrinted() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        new Figures(null, "x", Clock.systemUTC(), () -> "?", new PrintStream(printed, true, StandardCharsets.UTF_8))
                .add("masking.throughput", "958 MB/s", "");
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEqualTo("figure masking.throughput 958 MB/s\n");
        assertThat(dir).isEmptyDirectory();
    }

    @Test
    void aKeyIsOneWordOfTheTable() {
        assertThatThrownBy(() -> new Figures.Row("Docker step", "1×", LocalDate.now(), "1", "c", ""))
                .hasMessageContaining("lower case");
    }
}
