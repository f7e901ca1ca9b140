package dev.knotless.runner.run.step.protocol;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the steps before hand to a step as it starts: variables under its own (those they handed
 * back, which the step's {@code env} overrides, as GitHub's runner's job environment is), variables
 * over its own (its computed values, the names of its files, the directories to put first on
 * {@code PATH}), and the shell text its command starts with.
 *
 * @param prelude shell text run before the step's command, each statement ending in {@code ;}; empty for none
 */
public record StepStart(Map<String, String> under, Map<String, String> over, String prelude) {

    /** Nothing handed over: ours. */
    public static final StepStart NONE = new StepStart(Map.of(), Map.of(), "");

    public StepStart {
        under = Collections.unmodifiableMap(new LinkedHashMap<>(under));
        over = Collections.unmodifiableMap(new LinkedHashMap<>(over));
    }
}
