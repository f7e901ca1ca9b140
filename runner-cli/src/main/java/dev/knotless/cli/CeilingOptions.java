package dev.knotless.cli;

import dev.knotless.executor.Resources;
import dev.knotless.runner.run.request.Ceilings;
import java.time.Duration;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The defaults and maxima a run gets on every executor ({@link Ceilings}); the built-in maxima
 * hold when none is given. Shared by exec and daemon through {@link RunOptions}.
 */
final class CeilingOptions {

    private static final String UNSET = "; default: the executor's own for a trusted run, and an untrusted run"
            + " always gets a limit: ";
    private static final String CLAMPED = "; more is clamped, with a notice in the run's log (default: ${DEFAULT-VALUE}).";

    @Option(names = "--default-cpu", paramLabel = "CPU", description = "CPU for a workflow that asks for none (500m, 2" + UNSET + "2).")
    @Nullable String defaultCpu;

    @Option(names = "--max-cpu", paramLabel = "CPU", defaultValue = "16", description = "The most CPU a run gets" + CLAMPED)
    String maxCpu;

    @Option(names = "--default-memory", paramLabel = "SIZE",
            description = "Memory for a workflow that asks for none (512Mi, 4Gi" + UNSET + "4Gi).")
    @Nullable String defaultMemory;

    @Option(names = "--max-memory", paramLabel = "SIZE", defaultValue = "64Gi", description = "The most memory a run gets" + CLAMPED)
    String maxMemory;

    @Option(names = "--default-timeout", paramLabel = "DURATION", defaultValue = "1h", converter = DurationConverter.class,
            description = "A run's timeout when its workflow sets none (default: ${DEFAULT-VALUE}).")
    Duration defaultTimeout;

    @Option(names = "--max-timeout", paramLabel = "DURATION", defaultValue = "6h", converter = DurationConverter.class,
            description = "The longest a workflow's timeout may be" + CLAMPED)
    Duration maxTimeout;

    @Option(names = "--max-step-timeout", paramLabel = "DURATION", defaultValue = "6h", converter = DurationConverter.class,
            description = "The longest a step's timeout may be" + CLAMPED)
    Duration maxStepTimeout;

    /**
     * The ceilings the flags say.
     *
     * @throws IllegalArgumentException naming the flag, for a quantity that is not one or a default above its maximum
     */
    Ceilings ceilings() {
        Resources defaults = new Resources(quantity("--default-cpu", defaultCpu, Resources::parseMilliCpu),
                quantity("--default-memory", defaultMemory, Resources::parseMemory));
        Resources maxima = new Resources(quantity("--max-cpu", maxCpu, Resources::parseMilliCpu),
                quantity("--max-memory", maxMemory, Resources::parseMemory));
        return new Ceilings(defaults, maxima, maxTimeout, maxStepTimeout);
    }

    private static long quantity(String flag, @Nullable String text, ToLongFunction<String> parse) {
        if (text == null) {
            return 0;
        }
        long value;
        try {
            value = parse.applyAsLong(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + ": " + e.getMessage());
        }
        if (value < 1) {
            throw new IllegalArgumentException(flag + ": must be more than zero, got '" + text + "'");
        }
        return value;
    }
}
