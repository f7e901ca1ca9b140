package dev.knotless.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * docs/design/performance.md's table of goals and figures: one row per line of bench/goals.tsv
 * (hand-written: key, the figure's name, its goal, and why it is not met where it is not), with the
 * newest row of that key in bench/results/figures.tsv (what a benchmark last printed).
 */
final class PerformanceTable {

    static final String GOALS_HEADER = "key\tfigure\tgoal\twhy, when not met";
    /** The goal of a figure kept to be watched, with none set. */
    static final String NO_GOAL = "—";

    private static final String NUMBER = "(-?[0-9][0-9,]*(?:\\.[0-9]+)?)";
    /** A value: a number or a range of two ("0.52–0.53×"), then its unit. */
    private static final Pattern VALUE = Pattern.compile("^" + NUMBER + "(?:\\s*[–-]\\s*" + NUMBER + ")?\\s*(\\S*)");
    /** A goal that compares: "≤ 1.3×", "≥ 200 MB/s", "< 1,200 ms at a 200 ms poll". */
    private static final Pattern COMPARE = Pattern.compile("^(≤|<|≥|>|=)\\s*" + NUMBER + "\\s*(\\S*)");

    private PerformanceTable() {}

    /** A line of bench/goals.tsv. */
    record Goal(String key, String name, String goal, String reason) {}

    /** The table, and what is wrong with the two files (the table is true only when nothing is). */
    record Rendered(String table, List<String> problems) {}

    static List<Goal> goals(Path file) throws IOException {
        List<Goal> goals = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#") || line.equals(GOALS_HEADER)) {
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f.length < 3 || f.length > 4) {
                throw new IllegalArgumentException(file + ": not a goal (" + GOALS_HEADER.replace('\t', ',') + "): " + line);
            }
            goals.add(new Goal(f[0].strip(), f[1].strip(), f[2].strip(), f.length > 3 ? f[3].strip() : ""));
        }
        return goals;
    }

    static Rendered render(List<Goal> goals, List<Figures.Row> rows) {
        List<String> problems = new ArrayList<>();
        Map<String, List<Figures.Row>> byKey = rows.stream()
                .collect(Collectors.groupingBy(Figures.Row::key, LinkedHashMap::new, Collectors.toList()));
        Set<String> seen = new TreeSet<>();
        StringBuilder table = new StringBuilder("| figure | goal | latest | measured | verdict |\n| --- | --- | --- | --- | --- |\n");
        for (Goal goal : goals) {
            if (!seen.add(goal.key())) {
                problems.add("bench/goals.tsv has " + goal.key() + " twice");
                continue;
            }
            List<Figures.Row> ofKey = byKey.getOrDefault(goal.key(), List.of());
            if (ofKey.isEmpty()) {
                problems.add("no figure for the goal " + goal.key() + " in bench/results/figures.tsv: run the benchmark that reports it");
                continue;
            }
            Figures.Row latest = newest(ofKey);
            String verdict;
            try {
                verdict = verdict(goal, latest.value());
            } catch (IllegalArgumentException e) {
                problems.add(goal.key() + ": " + e.getMessage());
                verdict = "?";
            }
            table.append("| ").append(cell(goal.name())).append(" | ").append(cell(goal.goal())).append(" | ")
                    .append(cell(latest.value() + (latest.detail().isEmpty() ? "" : " (" + latest.detail() + ")")))
                    .append(" | ").append(cell(measured(latest, ofKey))).append(" | ").append(cell(verdict)).append(" |\n");
        }
        for (String key : byKey.keySet()) {
            if (!seen.contains(key)) {
                problems.add("the figure " + key + " has no line in bench/goals.tsv: give it a goal (or " + NO_GOAL + " for none)");
            }
        }
        return new Rendered(table.toString(), problems);
    }

    /** The newest row: the latest day, and of one day the one appended last. */
    static Figures.Row newest(List<Figures.Row> rows) {
        Figures.Row newest = rows.getFirst();
        for (Figures.Row row : rows) {
            if (!row.date().isBefore(newest.date())) {
                newest = row;
            }
        }
        return newest;
    }

    /**
     * "met", the reason bench/goals.tsv gives when the value misses its goal, or that reason alone
     * for a figure with no goal; a missed goal with no reason given is a problem, not a verdict.
     */
    static String verdict(Goal goal, String value) {
        Optional<Boolean> met = meets(goal.goal(), value);
        if (met.isEmpty()) {
            return goal.reason().isEmpty() ? "no goal" : goal.reason();
        }
        if (met.get()) {
            return "met";
        }
        if (goal.reason().isEmpty()) {
            throw new IllegalArgumentException(value + " misses the goal " + goal.goal() + ": say why in bench/goals.tsv");
        }
        return "**not met**: " + goal.reason();
    }

    /**
     * Whether {@code value} meets {@code goal}: a goal that compares ("≤ 1.3×") takes the value's
     * number in the same unit (of a range, the end that is worse for the goal); {@link #NO_GOAL} is no
     * goal at all (empty); any other goal ("flat") is met by a value of the same text.
     */
    static Optional<Boolean> meets(String goal, String value) {
        if (goal.equals(NO_GOAL)) {
            return Optional.empty();
        }
        Matcher g = COMPARE.matcher(goal);
        if (!g.find()) {
            return Optional.of(value.equals(goal));
        }
        Matcher v = VALUE.matcher(value);
        if (!v.find()) {
            throw new IllegalArgumentException("the goal " + goal + " compares a number, and " + value + " does not start with one");
        }
        if (!v.group(3).equals(g.group(3))) {
            throw new IllegalArgumentException("the goal " + goal + " is in '" + g.group(3) + "', the value " + value + " in '"
                    + v.group(3) + "'");
        }
        double low = number(v.group(1));
        double high = v.group(2) == null ? low : number(v.group(2));
        double bound = number(g.group(2));
        return Optional.of(switch (g.group(1)) {
            case "≤" -> Math.max(low, high) <= bound;
            case "<" -> Math.max(low, high) < bound;
            case "≥" -> Math.min(low, high) >= bound;
            case ">" -> Math.min(low, high) > bound;
            default -> low == bound && high == bound;
        });
    }

    private static double number(String text) {
        return Double.parseDouble(text.replace(",", ""));
    }

    /** When and how: the day, the load, the other rows of that day's spread, the command. */
    private static String measured(Figures.Row latest, List<Figures.Row> rows) {
        List<Figures.Row> thatDay = rows.stream().filter(r -> r.date().equals(latest.date())).toList();
        StringBuilder s = new StringBuilder(latest.date().toString()).append(", load ").append(latest.load());
        if (thatDay.size() > 1) {
            List<Figures.Row> sorted = thatDay.stream().sorted(Comparator.comparingDouble(PerformanceTable::sortValue)).toList();
            String first = sorted.getFirst().value();
            String last = sorted.getLast().value();
            s.append("; ").append(thatDay.size()).append(" runs that day: ")
                    .append(first.equals(last) ? "all " + first : first + " to " + last);
        }
        return s.append("; `").append(latest.command()).append('`').toString();
    }

    private static double sortValue(Figures.Row row) {
        Matcher v = VALUE.matcher(row.value());
        return v.find() ? number(v.group(1)) : 0;
    }

    /** Text a table cell can hold. */
    private static String cell(String text) {
        return text.replace("|", "\\|");
    }
}
