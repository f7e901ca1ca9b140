package dev.knotless.http;

import io.javalin.http.Context;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /api/nodes} (read scope: the status page's Nodes view reads it with its cookie) and
 * {@code POST /api/nodes/{id}/drain|undrain} (admin scope), both checked by the server's gate: the
 * node fleet, where the daemon runs the node executor; 404 elsewhere.
 */
final class NodesApi {

    private static final Logger LOG = LoggerFactory.getLogger(NodesApi.class);

    private final ApiSources sources;
    private final ApiJson json;

    NodesApi(ApiSources sources, ApiJson json) {
        this.sources = sources;
        this.json = json;
    }

    void list(Context ctx) throws IOException {
        NodeFleet.View view = fleet().view();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("nodes", view.nodes());
        body.put("live", view.live());
        body.put("reported", view.reported().orElse(null));
        json.send(ctx, body);
    }

    void drain(Context ctx) throws IOException {
        change(ctx, true);
    }

    void undrain(Context ctx) throws IOException {
        change(ctx, false);
    }

    private void change(Context ctx, boolean drained) throws IOException {
        String node = ctx.pathParam("id");
        NodeFleet.Change change;
        try {
            change = fleet().setDrained(node, drained);
        } catch (IllegalArgumentException e) {
            throw ApiError.badRequest(e.getMessage());
        }
        LOG.info("node {} through the API node={} changed={}", drained ? "drain" : "undrain", node,
                change == NodeFleet.Change.CHANGED);
        json.send(ctx, Map.of("node", node, "drained", drained, "changed", change == NodeFleet.Change.CHANGED));
    }

    private NodeFleet fleet() {
        NodeFleet fleet = sources.nodes();
        if (fleet == null) {
            throw new ApiError(404, "this runner has no node executor (daemon --executor node)");
        }
        return fleet;
    }
}
