package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/design/performance.md carries, between two markers, the table {@link PerformanceTable}
 * renders from bench/goals.tsv and bench/results/figures.tsv: each goal beside what its benchmark
 * last printed. A bench run appends rows, and then this test fails until {@code bench/figures}
 * (this test with {@code -Dknotless.writeDocs=true}) has rewritten the table; a table edited by
 * hand fails it too.
 */
class PerformanceFiguresTest {

    static final String BEGIN = "<!-- generated from bench/goals.tsv and bench/results/figures.tsv by bench/figures: begin -->";
    static final String END = "<!-- generated: end -->";

    @Test
    void thePageCarriesTheFiguresTheBenchmarksLastPrinted() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("bench/goals.tsv"))) {
            root = root.getParent();
        }
        Path page = root.resolve("docs/design/performance.md");
        PerformanceTable.Rendered rendered = PerformanceTable.render(PerformanceTable.goals(root.resolve("bench/goals.tsv")),
                Figures.read(root.resolve("bench/results/figures.tsv")));
        String generated = BEGIN + "\n\n" + rendered.table() + "\n" + END;
        String text = Files.readString(page);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (Boolean.getBoolean("knotless.writeDocs") && begin >= 0 && end > begin) {
            text = text.substring(0, begin) + generated + text.substring(end + END.length());
            Files.writeString(page, text);
        }
        assertThat(rendered.problems()).as("bench/goals.tsv and bench/results/figures.tsv disagree").isEmpty();
        assertThat(begin).as("performance.md has the figures table's markers").isNotNegative();
        assertThat(text.substring(text.indexOf(BEGIN), text.indexOf(END) + END.length()))
                .as("docs/design/performance.md's figures are not what the benchmarks last printed: run bench/figures")
                .isEqualTo(generated);
    }

    @Test
    void aGoalThatComparesTakesTheWorseEndOfARangeInTheSameUnit() {
        assertThat(PerformanceTable.meets("≤ 1.3×", "0.72×")).contains(true);
        assertThat(PerformanceTable.meets("≥ 1.2× in every run", "1.17×")).contains(false);
        assertThat(PerformanceTable.meets("≥ 2×", "0.52–0.53×")).contains(false);
        assertThat(PerformanceTable.meets("≤ 0.6×", "0.52–0.61×")).contains(false);
        assertThat(PerformanceTable.meets("< 1,200 ms", "1,050 ms")).contains(true);
        assertThat(PerformanceTable.meets("< 1,200 ms", "1,200 ms")).contains(false);
        assertThat(PerformanceTable.meets("flat", "flat")).contains(true);
        assertThat(PerformanceTable.meets("flat", "grows")).contains(false);
        assertThat(PerformanceTable.meets(PerformanceTable.NO_GOAL, "105 MB/s")).isEmpty();
        assertThatThrownBy(() -> PerformanceTable.meets("≤ 1 s", "208 ms")).hasMessageContaining("in 's'");
        assertThatThrownBy(() -> PerformanceTable.meets("≤ 350 ms", "fast")).hasMessageContaining("does not start with");
    }

    @Test
    void theNewestRowOfAKeyIsShownWithTheSpreadOfItsDay() {
        List<Figures.Row> rows = List.of(
                row("docker.step-overhead-ratio", "0.90×", "2026-12-07"),
                row("docker.step-overhead-ratio", "0.69×", "2026-12-08"),
                row("docker.step-overhead-ratio", "0.72×", "2026-12-08"),
                row("docker.step-overhead-ratio", "0.71×", "2026-12-08"),
                row("docker.step-overhead-ratio", "2.00×", "2026-12-01"));
        PerformanceTable.Rendered rendered = PerformanceTable.render(
                List.of(new PerformanceTable.Goal("docker.step-overhead-ratio", "step", "≤ 1.3×", "")), rows);
        assertThat(rendered.problems()).isEmpty();
        assertThat(rendered.table()).contains("| step | ≤ 1.3× | 0.71× | 2026-12-08, load 2.5; 3 runs that day: 0.69× to 0.72×;"
                + " `bench/docker-bench` | met |");
        assertThat(PerformanceTable.render(List.of(new PerformanceTable.Goal("daemon-soak.200x8", "soak", "flat", "")),
                        List.of(row("daemon-soak.200x8", "flat", "2026-12-08"), row("daemon-soak.200x8", "flat", "2026-12-08")))
                .table()).contains("2 runs that day: all flat;");
    }

    @Test
    void everyGoalNeedsAFigureEveryFigureAGoalAndAMissedGoalAReason() {
        PerformanceTable.Rendered rendered = PerformanceTable.render(List.of(
                        new PerformanceTable.Goal("a.no-figure", "a", "≤ 1×", ""),
                        new PerformanceTable.Goal("b.missed", "b", "≥ 2×", ""),
                        new PerformanceTable.Goal("c.missed", "c", "≥ 2×", "the kubelet's CPU")),
                List.of(row("b.missed", "0.5×", "2026-12-08"), row("c.missed", "0.5×", "2026-12-08"),
                        row("d.no-goal", "1×", "2026-12-08")));
        assertThat(rendered.problems()).containsExactly(
                "no figure for the goal a.no-figure in bench/results/figures.tsv: run the benchmark that reports it",
                "b.missed: 0.5× misses the goal ≥ 2×: say why in bench/goals.tsv",
                "the figure d.no-goal has no line in bench/goals.tsv: give it a goal (or — for none)");
        assertThat(rendered.table()).contains("| **not met**: the kubelet's CPU |");
    }

    private static Figures.Row row(String key, String value, String date) {
        return new Figures.Row(key, value, LocalDate.parse(date), "2.5", "bench/docker-bench", "");
    }
}
