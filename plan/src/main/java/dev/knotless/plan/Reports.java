package dev.knotless.plan;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a workflow's runs report beyond their steps ({@code reports}): the JUnit XML files to read
 * after the steps, as patterns of paths relative to {@code /work} ({@code **}, {@code *} and
 * {@code ?} as for branches: docs/reference/workflow.md).
 *
 * @param junit the patterns, in the file's order; empty for none
 */
public record Reports(List<String> junit) {

    public static final Reports NONE = new Reports(List.of());

    public Reports {
        junit = List.copyOf(junit);
    }

    /** Whether {@code path} (relative to {@code /work}, no leading {@code /}) is a JUnit report. */
    public boolean isJunit(String path) {
        for (String pattern : junit) {
            if (Glob.matches(pattern, path)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The file names the patterns can match, as {@code find -name} patterns: each pattern's last
     * segment, or empty when one of them matches any name (its last segment is {@code **}).
     */
    public Set<String> junitFileNames() {
        Set<String> names = new LinkedHashSet<>();
        for (String pattern : junit) {
            String last = pattern.substring(pattern.lastIndexOf('/') + 1);
            if (last.contains("**") || last.isEmpty()) {
                return Set.of();
            }
            names.add(last);
        }
        return names;
    }
}
