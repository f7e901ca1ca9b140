package dev.knotless.runner.run.request;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How a run that another needs ended, and what it handed on ({@link Check#jobOutputs}).
 *
 * @param name its workflow's name, as its check carries it
 * @param group what {@code needs} calls it: its workflow's name as written, shared by a matrix's runs
 */
public record NeededRun(String name, String group, CheckStatus status, Map<String, String> outputs) {

    public NeededRun {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(status, "status");
        outputs = Collections.unmodifiableMap(new LinkedHashMap<>(outputs));
    }

    /** The needed run of workflow group {@code group} that {@code check} is of. */
    public static NeededRun of(String group, Check check) {
        return new NeededRun(check.workflow(), group, check.continuedOnError() ? CheckStatus.SUCCESS : check.status(),
                check.jobOutputs());
    }
}
