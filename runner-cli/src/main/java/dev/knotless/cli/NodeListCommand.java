package dev.knotless.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.executor.node.protocol.Ed25519Keys;
import dev.knotless.executor.node.runner.FleetSnapshot;
import dev.knotless.executor.node.runner.NodeDrains;
import dev.knotless.executor.node.runner.NodesFile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "list", mixinStandardHelpOptions = true,
        description = {"On the runner host: the nodes of this runner — from the nodes file, the drained set and, where a"
                + " daemon with this --state-dir is running, what it knows: connected, last seen, allocations.",
                "The daemon writes what it knows to STATE_DIR/" + FleetSnapshot.FILE_NAME + " every few seconds; without"
                + " a recent one, connected and allocations are unknown ('?', null in JSON)."})
final class NodeListCommand implements Callable<Integer> {

    @Option(names = "--nodes", paramLabel = "FILE", description = "The daemon's --nodes file (optional: enrolled and connected nodes show without it).")
    @Nullable Path nodes;

    @Option(names = "--json", description = "One JSON array instead of a table.")
    boolean json;

    @Mixin
    StateDirOption state;

    @Spec
    CommandSpec spec;

    /** A row: what each source says of one node. */
    private record Row(String node, Optional<String> keyId, boolean listed, Optional<Boolean> connected, boolean drained,
            Optional<Instant> lastSeen, Optional<Integer> allocations) {}

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        Instant now = Clock.systemUTC().instant();
        Path dir = state.stateDir();
        Map<String, Row> rows = new TreeMap<>();
        if (nodes != null) {
            NodesFile.readOrEmpty(nodes).nodes().forEach((id, key) -> rows.put(id, new Row(id,
                    Optional.of(Ed25519Keys.keyIdOf(Ed25519Keys.raw(key))), true, Optional.empty(), false, Optional.empty(), Optional.empty())));
        }
        Optional<FleetSnapshot.Read> snapshot = FleetSnapshot.read(dir);
        boolean live = snapshot.map(s -> s.freshAt(now)).orElse(false);
        for (FleetSnapshot.Node n : snapshot.map(FleetSnapshot.Read::nodes).orElse(java.util.List.of())) {
            Row before = rows.get(n.node());
            rows.put(n.node(), new Row(n.node(), before != null ? before.keyId() : Optional.of(n.keyId()).filter(k -> !k.equals("-")),
                    before != null && before.listed(), live ? Optional.of(n.connected()) : Optional.empty(), false,
                    n.lastSeen(), live ? Optional.of(n.allocations()) : Optional.empty()));
        }
        Set<String> drained = new NodeDrains(dir).drained();
        for (String id : drained) {
            Row r = rows.get(id);
            rows.put(id, r == null ? new Row(id, Optional.empty(), false, live ? Optional.of(false) : Optional.empty(), true,
                    Optional.empty(), Optional.empty())
                    : new Row(id, r.keyId(), r.listed(), r.connected(), true, r.lastSeen(), r.allocations()));
        }
        if (live) {
            // The running daemon did not name these: it does not know them, so nothing of them is connected.
            rows.replaceAll((id, r) -> r.connected().isPresent() ? r
                    : new Row(id, r.keyId(), r.listed(), Optional.of(false), r.drained(), r.lastSeen(), Optional.of(0)));
        } else {
            spec.commandLine().getErr().println(snapshot.map(s -> "no daemon with this state directory has reported since "
                    + s.written().truncatedTo(ChronoUnit.SECONDS) + "; connected and allocations are unknown")
                    .orElse("no daemon with this state directory has reported; connected and allocations are unknown"));
        }
        if (json) {
            ArrayNode array = new ObjectMapper().createArrayNode();
            for (Row r : rows.values()) {
                ObjectNode o = array.addObject();
                o.put("node", r.node());
                o.put("keyId", r.keyId().orElse(null));
                o.put("inNodesFile", nodes == null ? null : r.listed());
                if (r.connected().isPresent()) {
                    o.put("connected", r.connected().get());
                } else {
                    o.putNull("connected");
                }
                o.put("drained", r.drained());
                o.put("lastSeen", r.lastSeen().map(Instant::toString).orElse(null));
                if (r.allocations().isPresent()) {
                    o.put("allocations", r.allocations().get());
                } else {
                    o.putNull("allocations");
                }
            }
            out.println(array.toPrettyString());
        } else {
            String format = "%-24s %-25s %-9s %-7s %-20s %s%n";
            out.printf(format, "NODE", "KEY ID", "CONNECTED", "DRAINED", "LAST SEEN", "ALLOCATIONS");
            for (Row r : rows.values()) {
                out.printf(format, r.node(), r.keyId().orElse("-"), r.connected().map(c -> c ? "yes" : "no").orElse("?"),
                        r.drained() ? "yes" : "no", r.lastSeen().map(i -> i.truncatedTo(ChronoUnit.SECONDS).toString()).orElse("-"),
                        r.allocations().map(String::valueOf).orElse("?"));
            }
        }
        out.flush();
        return ExitCodes.SUCCESS;
    }
}
