package dev.knotless.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.checkout.Mirrors;
import dev.knotless.tar.Printable;
import dev.knotless.runner.daemon.Schedules;
import dev.knotless.forge.Repository;
import dev.knotless.runner.state.StateStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** What the daemon will run on its own: each schedule's next due time, and the last it queued. */
@Command(name = "schedules", mixinStandardHelpOptions = true,
        description = "Lists the scheduled workflows (on.schedule) of the recorded repositories: branch, cron, the"
                + " runner that runs them, the next due time and the last one queued.")
final class SchedulesCommand implements Callable<Integer> {

    @Mixin
    RepoCommand.ForgeDir forge;

    @Option(names = "--repo", paramLabel = "NAME", description = "Only this repository (owner/name).")
    @Nullable String repo;

    @Mixin
    JsonArrayOption output;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Instant now = Clock.systemUTC().instant();
        ArrayNode rows = new ObjectMapper().createArrayNode();
        int failed = 0;
        try (StateStore state = StateStore.open(forge.state.stateDir())) {
            Schedules schedules = new Schedules(new Mirrors(forge.state.stateDir()));
            for (Repository r : forge.forge(state.cursors()).repositories()) {
                if (repo != null && !repo.equals(r.name())) {
                    continue;
                }
                Schedules.Read read;
                try {
                    read = schedules.read(r);
                } catch (IOException | RuntimeException e) {
                    err.println("knotless-run: " + r.name() + ": cannot read its schedules: " + Printable.name(String.valueOf(e.getMessage())));
                    failed++;
                    continue;
                }
                for (Schedules.Entry e : read.entries()) {
                    ObjectNode row = rows.addObject();
                    row.put("repo", r.name());
                    row.put("workflow", e.workflow());
                    row.put("branch", e.branch());
                    row.put("cron", e.schedule().cron());
                    row.put("timezone", e.schedule().zone().getId());
                    row.put("runner", e.scheduler().orElse(null));
                    row.put("next", e.schedule().next(now).map(Instant::toString).orElse(null));
                    Optional<Instant> last = state.scheduleMarks().get(e.key());
                    row.put("mark", last.map(Instant::toString).orElse(null));
                }
            }
        }
        if (output.json) {
            out.println(rows.toPrettyString());
        } else {
            String format = "%-24s %-16s %-12s %-16s %-14s %-12s %-21s %s%n";
            out.printf(format, "REPO", "WORKFLOW", "BRANCH", "CRON", "ZONE", "RUNNER", "NEXT", "LAST MARK");
            rows.forEach(row -> out.printf(format, row.get("repo").asText(), row.get("workflow").asText(),
                    row.get("branch").asText(), row.get("cron").asText(), row.get("timezone").asText(),
                    row.get("runner").isNull() ? "(none)" : row.get("runner").asText(),
                    row.get("next").isNull() ? "never" : row.get("next").asText(),
                    row.get("mark").isNull() ? "-" : row.get("mark").asText()));
        }
        out.flush();
        return failed == 0 ? ExitCodes.SUCCESS : ExitCodes.FAILURE;
    }
}
