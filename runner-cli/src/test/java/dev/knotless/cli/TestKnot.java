package dev.knotless.cli;

import io.javalin.Javalin;
import io.javalin.websocket.WsContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in for a tangled knot, no more than a spindle needs of one: the {@code /events} WebSocket
 * on which it sends the frames a test gives it (to every spindle connected, as a knot does), and
 * its repositories' git over HTTP, served as git's "dumb" protocol from bare repositories (files
 * under {@code /DID/NAME/}, after {@code git update-server-info}). tangled's knot is Go and cannot be
 * built here; its frame shape is documented in docs/design/spindle.md.
 */
final class TestKnot implements AutoCloseable {

    private final Javalin app;
    private final List<WsContext> spindles = new CopyOnWriteArrayList<>();
    /** The cursor each dial asked for, in order. */
    final List<String> cursors = new CopyOnWriteArrayList<>();

    /** A knot hosting one repository, {@code DID/NAME}, from the bare repository {@code bare}. */
    TestKnot(String did, String name, Path bare) {
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.jetty.host = "127.0.0.1";
            config.jetty.port = 0;
            config.routes.ws("/events", ws -> {
                ws.onConnect(ctx -> {
                    cursors.add(String.valueOf(ctx.queryParam("cursor")));
                    spindles.add(ctx);
                });
                ws.onClose(spindles::remove);
            });
            config.routes.get("/" + did + "/" + name + "/<file>", ctx -> {
                Path file = bare.resolve(ctx.pathParam("file")).normalize();
                if (!file.startsWith(bare) || !Files.isRegularFile(file)) {
                    ctx.status(404);
                    return;
                }
                ctx.contentType("application/octet-stream").result(Files.readAllBytes(file));
            });
        });
    }

    TestKnot start() {
        app.start();
        return this;
    }

    /** {@code 127.0.0.1:PORT}: the knot's host name, as repository records and pipelines name it. */
    String host() {
        return "127.0.0.1:" + app.port();
    }

    int connected() {
        return spindles.size();
    }

    /** Sends one frame to every spindle connected. */
    void send(String frame) {
        spindles.forEach(s -> s.send(frame));
    }

    /** Makes {@code bare} servable over the dumb protocol (after every push to it). */
    static void serverInfo(Path bare) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("git", "-C", bare.toString(), "update-server-info").inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IOException("git update-server-info failed in " + bare);
        }
    }

    @Override
    public void close() {
        app.stop();
    }
}
