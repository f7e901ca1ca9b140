package dev.knotless.cli;

import dev.knotless.cache.CacheStore;
import dev.knotless.cache.Entry;
import dev.knotless.cache.PruneReport;
import dev.knotless.executor.Resources;
import dev.knotless.tar.Bounded;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "cache", mixinStandardHelpOptions = true,
        description = "Shows and trims the cache layers kept under the state dir.",
        subcommands = {CacheCommand.ListLayers.class, CacheCommand.Prune.class})
final class CacheCommand extends CommandGroup {

    static CacheStore store(StateDirOption state, long budget) {
        return new CacheStore(state.stateDir().resolve("cache"), budget, Clock.systemUTC());
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists cache layers, most recently used first.")
    static final class ListLayers implements Callable<Integer> {
        @Mixin StateDirOption state;
        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            CacheStore store = store(state, Long.MAX_VALUE);
            PrintWriter out = spec.commandLine().getOut();
            out.printf("%-10s %-20s %-24s %-40s %s%n", "SIZE", "LAST USED", "REF", "REPOSITORY", "SCOPE");
            for (Entry e : store.list()) {
                out.printf("%-10s %-20s %-24s %-40s %s%n", Bounded.bytes(e.bytes()),
                        e.lastUsed().toString().substring(0, 19), e.ref(), e.repo(), e.scope());
            }
            out.printf("total %s%n", Bounded.bytes(store.totalBytes()));
            out.flush();
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "prune", mixinStandardHelpOptions = true,
            description = "Evicts least recently used layers until the total fits the budget, and layers unused for a while.")
    static final class Prune implements Callable<Integer> {
        @Mixin StateDirOption state;
        @Spec CommandSpec spec;

        @Option(names = "--budget", defaultValue = "5Gi", paramLabel = "SIZE",
                description = "Keep at most this much (default: ${DEFAULT-VALUE}).")
        String budget;

        @Option(names = "--unused-for", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "Also remove layers not used for this long (90m, 168h).")
        @Nullable Duration unusedFor;

        @Override
        public Integer call() throws Exception {
            long bytes = Resources.parseMemory(budget);
            CacheStore store = store(state, bytes);
            PrintWriter out = spec.commandLine().getOut();
            if (unusedFor != null) {
                PruneReport byAge = store.prune(unusedFor);
                out.println(byAge.describe());
            }
            out.println(store.prune(bytes).describe());
            out.flush();
            return ExitCodes.SUCCESS;
        }
    }
}
