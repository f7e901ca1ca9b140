package dev.knotless.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.http.NodeFleet;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code node list}, and the same as the top-level {@code nodes} ({@link NodesCommand}). */
@Command(name = "list", mixinStandardHelpOptions = true, description = {NodeListCommand.SUMMARY, NodeListCommand.DETAIL})
sealed class NodeListCommand implements Callable<Integer> permits NodesCommand {

    static final String SUMMARY = "On the runner host: the nodes of this runner — from the nodes file, the drained set and, where a"
            + " daemon with this --state-dir is running, what it knows: connected, last seen, allocations.";
    static final String DETAIL = "The daemon writes what it knows to STATE_DIR/" + NodeWiring.FLEET_FILE + " every few seconds;"
            + " without a recent one, connected and allocations are unknown ('?', null in JSON).";

    @Option(names = "--nodes", paramLabel = "FILE", description = "The daemon's --nodes file (optional: enrolled and connected nodes show without it).")
    @Nullable Path nodes;

    @Mixin
    JsonArrayOption output;

    @Mixin
    StateDirOption state;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        NodeFleet.View view = NodeWiring.fleet(state.stateDir(), nodes).view();
        if (!view.live()) {
            spec.commandLine().getErr().println(view.reported().map(t -> "no daemon with this state directory has reported since "
                    + t.truncatedTo(ChronoUnit.SECONDS) + "; connected and allocations are unknown")
                    .orElse("no daemon with this state directory has reported; connected and allocations are unknown"));
        }
        if (output.json) {
            ArrayNode array = new ObjectMapper().createArrayNode();
            for (NodeFleet.Node r : view.nodes()) {
                ObjectNode o = array.addObject();
                o.put("node", r.node());
                o.put("keyId", r.keyId());
                o.put("inNodesFile", r.inNodesFile());
                o.put("connected", r.connected());
                o.put("drained", r.drained());
                o.put("lastSeen", r.lastSeen() == null ? null : r.lastSeen().toString());
                o.put("allocations", r.allocations());
                o.set("capacity", r.capacity() == null ? null : new ObjectMapper().valueToTree(r.capacity()));
                o.set("allocated", r.allocated() == null ? null : new ObjectMapper().valueToTree(r.allocated()));
                o.set("health", r.health() == null ? null : new ObjectMapper().valueToTree(r.health()));
            }
            out.println(array.toPrettyString());
        } else {
            String format = "%-24s %-25s %-14s %-9s %-7s %-20s %-11s %-9s %-17s %-9s %-8s %s%n";
            out.printf(format, "NODE", "KEY ID", "VERSION", "CONNECTED", "DRAINED", "LAST SEEN", "ALLOCATIONS", "CPUS", "MEMORY",
                    "FREE DISK", "SKEW", "RUNC");
            for (NodeFleet.Node r : view.nodes()) {
                out.printf(format, r.node(), r.keyId() == null ? "-" : r.keyId(), r.health() == null ? "?" : r.health().agent(),
                        r.connected() == null ? "?" : r.connected() ? "yes" : "no", r.drained() ? "yes" : "no",
                        r.lastSeen() == null ? "-" : r.lastSeen().truncatedTo(ChronoUnit.SECONDS).toString(),
                        r.allocations() == null ? "?" : r.allocations().toString(),
                        r.capacity() == null ? "?" : used(r, true) + "/" + cpus(r.capacity().milliCpu()),
                        r.capacity() == null ? "?" : used(r, false) + "/" + gib(r.capacity().memoryBytes()) + " GiB",
                        r.capacity() == null ? "?" : gib(r.capacity().freeDiskBytes()) + " GiB",
                        r.health() == null ? "?" : skew(r.health().clockSkewMillis()),
                        r.health() == null ? "?" : r.health().runc());
            }
        }
        out.flush();
        return ExitCodes.SUCCESS;
    }

    /** What this runner holds there, as the column's unit; {@code ?} when no daemon reported it. */
    private static String used(NodeFleet.Node r, boolean cpu) {
        if (r.allocated() == null) {
            return "?";
        }
        return cpu ? cpus(r.allocated().milliCpu()) : gib(r.allocated().memoryBytes());
    }

    private static String cpus(long milliCpu) {
        return new java.math.BigDecimal(milliCpu).movePointLeft(3).stripTrailingZeros().toPlainString();
    }

    private static String gib(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f", bytes / (double) (1L << 30));
    }

    /** The node's clock against the runner's, to the second: {@code +0s}, {@code -3s}. */
    private static String skew(long millis) {
        long seconds = Math.round(millis / 1000.0);
        return (seconds >= 0 ? "+" : "") + seconds + "s";
    }
}
