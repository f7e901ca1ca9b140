package dev.knotless.cli;

import dev.knotless.executor.Executor;
import dev.knotless.executor.SweepReport;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Removes what an earlier, dead process of this runner left behind, and says what it removed. */
final class Sweeper {

    private static final Logger LOG = LoggerFactory.getLogger(Sweeper.class);

    private Sweeper() {}

    static SweepReport sweep(Executor executor, String runnerId, Console console) {
        SweepReport report = executor.sweep(runnerId, Set.of());
        for (String removed : report.removed()) {
            LOG.info("swept orphan runner={} executor={} removed={}", runnerId, executor.name(), removed);
            console.line("swept orphan " + removed + " left by an earlier run of runner " + runnerId);
        }
        for (String failed : report.failed()) {
            LOG.warn("sweep failed runner={} executor={} what={}", runnerId, executor.name(), failed);
            console.line("could not sweep " + failed);
        }
        return report;
    }
}
