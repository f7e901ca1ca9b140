package dev.knotless.plan;

import dev.knotless.checks.Event;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Which events run a workflow, and on which branches.
 *
 * <p>An event that is a key runs the workflow; its list holds branch globs, and an empty list
 * means every branch. Globs: {@code *} within a {@code /}-separated segment, {@code **} across
 * segments, {@code ?} one character. The branch is the short name ({@code main}, not {@code
 * refs/heads/main}): the pushed branch for {@code push}, the branch a change would land on for
 * {@code pull} and {@code batch}, the branch asked for with {@code manual}.
 *
 * <p>A glob written {@code !GLOB} excludes: the globs are read in order and the last that matches
 * a branch decides, and a list of exclusions alone starts from every branch (GitHub's rule, which
 * its front-end writes so; ours refuses a leading {@code !}).
 *
 * <p>{@code schedule} is not among {@code branches}: its entries ({@link #schedules}) say when and
 * on which branches; the daemon runs them, and {@code exec --event schedule} runs a workflow that
 * has any.
 *
 * <p>An event may also filter on the files changed ({@link #paths}): the same globs, read the
 * same way for each changed file, and the workflow runs when at least one file is selected
 * (GitHub's {@code paths}; its {@code paths-ignore} is a list of exclusions alone). A workflow
 * with both filters runs only when both select.
 *
 * @param branches per event, the branch globs; empty for every branch
 * @param paths per event that filters on changed files, the path globs; no entry for no filter
 * @param inputs what a manual run takes ({@code on.manual.inputs}), by name in the file's order
 * @param schedules the cron times of {@code on.schedule}, in the file's order
 */
public record Triggers(Map<Event, List<String>> branches, Map<Event, List<String>> paths, Map<String, Input> inputs,
        List<Schedule> schedules) {

    /** Written before a glob, excludes the branches it matches ({@code !release/**}). */
    public static final String EXCLUDE = "!";

    /** What a workflow without {@code on} gets: {@code push} and {@code manual}, every branch. */
    public static final Triggers DEFAULT = of(Event.PUSH, Event.MANUAL);

    public Triggers {
        branches = copy(branches);
        paths = copy(paths);
        inputs = Collections.unmodifiableMap(new java.util.LinkedHashMap<>(inputs));
        schedules = List.copyOf(schedules);
        if (branches.containsKey(Event.SCHEDULE)) {
            throw new IllegalArgumentException("schedule is given by its entries, not by branches");
        }
        if (!branches.keySet().containsAll(paths.keySet())) {
            throw new IllegalArgumentException("paths filter events that do not run the workflow: " + paths.keySet());
        }
        for (List<String> globs : paths.values()) {
            if (globs.isEmpty()) {
                throw new IllegalArgumentException("a path filter selects at least one glob");
            }
        }
    }

    /** These events on these branches, with no path filter. */
    public Triggers(Map<Event, List<String>> branches, Map<String, Input> inputs, List<Schedule> schedules) {
        this(branches, Map.of(), inputs, schedules);
    }

    /** These events on these branches, with no inputs, no schedule and no path filter. */
    public Triggers(Map<Event, List<String>> branches) {
        this(branches, Map.of(), List.of());
    }

    private static Map<Event, List<String>> copy(Map<Event, List<String>> globs) {
        Map<Event, List<String>> copy = new EnumMap<>(Event.class);
        globs.forEach((event, list) -> copy.put(Objects.requireNonNull(event), List.copyOf(list)));
        return Collections.unmodifiableMap(copy);
    }

    /** These events, on every branch. */
    public static Triggers of(Event... events) {
        Map<Event, List<String>> map = new EnumMap<>(Event.class);
        for (Event event : events) {
            map.put(event, List.of());
        }
        return new Triggers(map);
    }

    public Set<Event> events() {
        if (schedules.isEmpty()) {
            return branches.keySet();
        }
        Set<Event> events = java.util.EnumSet.of(Event.SCHEDULE);
        events.addAll(branches.keySet());
        return Collections.unmodifiableSet(events);
    }

    /**
     * Whether {@code event} on {@code branch} (its short name) runs the workflow, its path filter
     * aside ({@link #matchesPaths}). For {@code
     * schedule}: whether it has a schedule at all (by hand, {@code exec --event schedule}, the
     * branch is whatever revision was asked for; the daemon picks branches itself).
     */
    public boolean matches(Event event, String branch) {
        Objects.requireNonNull(branch, "branch");
        if (event == Event.SCHEDULE) {
            return !schedules.isEmpty();
        }
        List<String> globs = branches.get(Objects.requireNonNull(event, "event"));
        if (globs == null) {
            return false;
        }
        return globs.isEmpty() || selects(globs, branch);
    }

    /** Whether {@code event} filters on the files changed: then {@link #matchesPaths} is asked. */
    public boolean filtersPaths(Event event) {
        return paths.containsKey(event);
    }

    /**
     * Whether the files {@code changed} pass {@code event}'s path filter: at least one of them is
     * selected. True when the event has no filter, and when what changed is not known.
     */
    public boolean matchesPaths(Event event, ChangedFiles changed) {
        List<String> globs = paths.get(Objects.requireNonNull(event, "event"));
        if (globs == null) {
            return true;
        }
        return switch (changed) {
            case ChangedFiles.Unknown unknown -> true;
            case ChangedFiles.Known known -> known.paths().stream().anyMatch(path -> selects(globs, path));
        };
    }

    /**
     * GitHub's rule, for branches and paths alike: the globs are read in order and the last that
     * matches decides; a list that only excludes starts from everything.
     */
    private static boolean selects(List<String> globs, String name) {
        boolean matched = globs.stream().allMatch(glob -> glob.startsWith(EXCLUDE));
        for (String glob : globs) {
            boolean exclude = glob.startsWith(EXCLUDE);
            if (Glob.matches(exclude ? glob.substring(1) : glob, name)) {
                matched = !exclude;
            }
        }
        return matched;
    }
}
