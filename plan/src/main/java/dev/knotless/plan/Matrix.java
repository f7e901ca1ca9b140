package dev.knotless.plan;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A workflow's {@code matrix:}: one run per combination of its axes' values, less the excluded.
 *
 * @param axes each key's values, in the file's order
 * @param exclude partial combinations left out: each leaves out every combination agreeing with it
 * @param maxParallel at most this many combinations run at once; 0 for no limit beyond the runner's
 * @param failFast the first combination to fail cancels the others
 */
public record Matrix(Map<String, List<String>> axes, List<Map<String, String>> exclude, int maxParallel, boolean failFast) {

    /** More would be a runner's week of work from one push. */
    public static final int MAX_COMBINATIONS = 256;

    public Matrix {
        Map<String, List<String>> copy = new LinkedHashMap<>();
        axes.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        axes = Collections.unmodifiableMap(copy);
        exclude = exclude.stream().map(e -> Collections.unmodifiableMap(new LinkedHashMap<>(e))).toList();
    }

    /** The combinations, in the order of the axes (the last key varies fastest), excluded ones left out. */
    public List<Map<String, String>> combinations() {
        List<Map<String, String>> all = new ArrayList<>();
        all.add(new LinkedHashMap<>());
        for (Map.Entry<String, List<String>> axis : axes.entrySet()) {
            List<Map<String, String>> next = new ArrayList<>();
            for (Map<String, String> partial : all) {
                for (String value : axis.getValue()) {
                    Map<String, String> more = new LinkedHashMap<>(partial);
                    more.put(axis.getKey(), value);
                    next.add(more);
                }
            }
            all = next;
        }
        return all.stream().filter(c -> exclude.stream().noneMatch(e -> c.entrySet().containsAll(e.entrySet())))
                .map(Collections::unmodifiableMap).toList();
    }

    /** How many combinations the axes make before exclusion, without making them. */
    public long product() {
        long n = 1;
        for (List<String> values : axes.values()) {
            n *= values.size();
            if (n > Integer.MAX_VALUE) {
                return n;
            }
        }
        return n;
    }

    /** "jdk=21, db=postgres". */
    public static String label(Map<String, String> combination) {
        return String.join(", ", combination.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    }
}
