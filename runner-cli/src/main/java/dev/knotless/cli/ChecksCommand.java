package dev.knotless.cli;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckJson;
import dev.knotless.checks.CheckStore;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "checks", mixinStandardHelpOptions = true,
        description = "Lists stored checks, newest first, or prints one as JSON.",
        subcommands = {ChecksVerifyCommand.class})
final class ChecksCommand implements Callable<Integer> {

    @Parameters(index = "0", arity = "0..1", paramLabel = "CHECK_ID", description = "Print this check as JSON.")
    @Nullable String id;

    @Option(names = "--limit", defaultValue = "20", paramLabel = "N", description = "How many to list (default: ${DEFAULT-VALUE}).")
    int limit;

    @Mixin
    StateDirOption state;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CheckStore store = new CheckStore(state.stateDir());
        CheckJson json = new CheckJson();
        if (id != null) {
            Check c = store.load(id).orElseThrow(() -> new IllegalArgumentException("no check " + id + " in " + state.stateDir()));
            spec.commandLine().getOut().println(new String(json.pretty(c), java.nio.charset.StandardCharsets.UTF_8));
            return ExitCodes.SUCCESS;
        }
        List<Check> all = store.list();
        for (Check c : all.subList(0, Math.min(limit, all.size()))) {
            spec.commandLine().getOut().printf("%-24s %-10s %-16s %-8s %.12s %s%n", c.id(), c.status().wireName(), c.workflow(),
                    c.event() == null ? "" : c.event().wireName(),
                    c.commit(), c.reason() == null ? "" : c.reason());
        }
        spec.commandLine().getOut().flush();
        return ExitCodes.SUCCESS;
    }
}
