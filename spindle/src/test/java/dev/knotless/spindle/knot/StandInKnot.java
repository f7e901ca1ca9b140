package dev.knotless.spindle.knot;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.websocket.WsConnectContext;
import io.javalin.websocket.WsContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A knot's {@code /events} as tangled's knot serves it: each event stored with its {@code created}
 * (nanoseconds, from the shared clock); a dial sends those after its cursor (after now without one),
 * oldest first, at most 100, then each event as it is published. It records the cursor each dial
 * asked for, and can send a connection something of the test's first.
 */
final class StandInKnot implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private record Row(long created, String rkey, String nsid, ObjectNode event) {
    }

    /** The cursor each dial asked for; 0 when it gave none. */
    final List<Long> dials = new CopyOnWriteArrayList<>();
    /** The WebSocket extensions each dial offered ("" for none). */
    final List<String> extensionsOffered = new CopyOnWriteArrayList<>();

    private final TickingClock clock;
    private final boolean withCreated;
    private final List<Row> rows = new ArrayList<>();
    private final Set<WsContext> sessions = ConcurrentHashMap.newKeySet();
    private final Javalin app;
    /** Given each new connection before its backlog, with the number of dials so far (1 for the first). */
    volatile Consumer2 onDial = (n, ctx) -> { };

    interface Consumer2 {
        void accept(int dial, WsConnectContext ctx);
    }

    /** On {@code port} (0: any free one); {@code withCreated}: frames carry their {@code created}, as a knot that sends its cursor would. */
    StandInKnot(TickingClock clock, int port, boolean withCreated) {
        this.clock = clock;
        this.withCreated = withCreated;
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.host = "127.0.0.1";
            config.jetty.port = port;
            config.routes.ws("/events", ws -> {
                ws.onConnect(this::connected);
                ws.onClose(sessions::remove);
                ws.onError(sessions::remove);
            });
        }).start();
    }

    int port() {
        return app.port();
    }

    String host() {
        return "127.0.0.1:" + port();
    }

    private synchronized void connected(WsConnectContext ctx) {
        String asked = ctx.queryParam("cursor");
        long cursor = asked == null ? 0 : Long.parseLong(asked);
        String extensions = ctx.header("Sec-WebSocket-Extensions");
        extensionsOffered.add(extensions == null ? "" : extensions);
        dials.add(cursor);
        onDial.accept(dials.size(), ctx);
        long from = cursor == 0 ? clock.nanos() : cursor;
        rows.stream().filter(r -> r.created > from).limit(100).forEach(r -> ctx.send(frame(r)));
        sessions.add(ctx);
    }

    /** Stores an event and sends it to every connection; its {@code created}. */
    synchronized long publish(String rkey, String nsid, ObjectNode event) {
        Row row = new Row(clock.nanos(), rkey, nsid, event);
        rows.add(row);
        String frame = frame(row);
        for (WsContext s : sessions) {
            try {
                s.send(frame);
            } catch (RuntimeException e) {
                sessions.remove(s);
            }
        }
        return row.created;
    }

    /** Sends {@code text} as it is, stored nowhere, to every connection. */
    synchronized void sendRaw(String text) {
        for (WsContext s : sessions) {
            s.send(text);
        }
    }

    int connections() {
        return sessions.size();
    }

    private String frame(Row r) {
        ObjectNode frame = JSON.createObjectNode();
        frame.put("rkey", r.rkey);
        frame.put("nsid", r.nsid);
        frame.set("event", r.event);
        if (withCreated) {
            frame.put("created", r.created);
        }
        return frame.toString();
    }

    @Override
    public void close() {
        app.stop();
    }
}
