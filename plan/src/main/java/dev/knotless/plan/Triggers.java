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
 * @param branches per event, the branch globs; empty for every branch
 * <p>{@code schedule} is not among {@code branches}: its entries ({@link #schedules}) say when and
 * on which branches; the daemon runs them, and {@code exec --event schedule} runs a workflow that
 * has any.
 *
 * @param inputs what a manual run takes ({@code on.manual.inputs}), by name in the file's order
 * @param schedules the cron times of {@code on.schedule}, in the file's order
 */
public record Triggers(Map<Event, List<String>> branches, Map<String, Input> inputs, List<Schedule> schedules) {

    /** Written before a glob, excludes the branches it matches ({@code !release/**}). */
    public static final String EXCLUDE = "!";

    /** What a workflow without {@code on} gets: {@code push} and {@code manual}, every branch. */
    public static final Triggers DEFAULT = of(Event.PUSH, Event.MANUAL);

    public Triggers {
        Map<Event, List<String>> copy = new EnumMap<>(Event.class);
        branches.forEach((event, globs) -> copy.put(Objects.requireNonNull(event), List.copyOf(globs)));
        branches = Collections.unmodifiableMap(copy);
        inputs = Collections.unmodifiableMap(new java.util.LinkedHashMap<>(inputs));
        schedules = List.copyOf(schedules);
        if (branches.containsKey(Event.SCHEDULE)) {
            throw new IllegalArgumentException("schedule is given by its entries, not by branches");
        }
    }

    /** These events on these branches, with no inputs and no schedule. */
    public Triggers(Map<Event, List<String>> branches) {
        this(branches, Map.of(), List.of());
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
     * Whether {@code event} on {@code branch} (its short name) runs the workflow. For {@code
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
        if (globs.isEmpty()) {
            return true;
        }
        // GitHub's rule: read in order, the last glob that matches decides; a list that only
        // excludes starts from every branch.
        boolean matched = globs.stream().allMatch(glob -> glob.startsWith(EXCLUDE));
        for (String glob : globs) {
            boolean exclude = glob.startsWith(EXCLUDE);
            if (BranchGlob.matches(exclude ? glob.substring(1) : glob, branch)) {
                matched = !exclude;
            }
        }
        return matched;
    }
}
