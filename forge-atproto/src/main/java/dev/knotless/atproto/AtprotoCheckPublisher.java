package dev.knotless.atproto;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.atproto.xrpc.Records;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.atproto.xrpc.XrpcException;
import dev.knotless.checks.Check;
import dev.knotless.checks.Output;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.text.OneLine;
import dev.knotless.time.Ticker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.DoubleSupplier;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Publishes each check as a {@code dev.knotless.check} record in the runner's own repository on
 * its PDS (docs/design/atproto.md), keyed by the run id ({@link RecordKeys}): the first put
 * creates the record, later ones replace it.
 *
 * <p>{@link #publish} never waits for the PDS: it puts the check in a bounded queue ({@link
 * PublishQueue}) and returns. One thread sends; a run's newer state replaces one not yet sent;
 * while the PDS is away the thread backs off (capped, with jitter) and tries again, so every run's
 * newest state reaches the PDS at least once unless the PDS stays away for the give-up time or the
 * runner stops first. Each of those losses is one log line, and so is each change between reaching
 * and not reaching the PDS; a failed try itself is not (it would be a line a second while the PDS
 * restarts).
 *
 * <p>A final check carries its capped log as a blob, and each output of at most {@link
 * Settings#maxBlobBytes()} as a blob of its own (larger ones are listed without).
 */
public final class AtprotoCheckPublisher implements CheckPublisher, AutoCloseable {

    /**
     * @param capacity how many runs may wait to be sent; a new run beyond it is refused with an
     *     {@link IOException} from {@link #publish} (the recorder logs it)
     * @param maxBlobBytes the largest log or output uploaded (the reference PDS takes 5 MiB by default)
     * @param shutdownGrace how long {@link #close()} goes on sending what waits
     */
    public record Settings(int capacity, RetryPolicy retry, long maxBlobBytes, Duration shutdownGrace) {

        public static final Settings DEFAULT = new Settings(1000, RetryPolicy.DEFAULT, 5L << 20, Duration.ofSeconds(10));

        public Settings {
            Objects.requireNonNull(retry, "retry");
            Objects.requireNonNull(shutdownGrace, "shutdownGrace");
            if (maxBlobBytes < 1) {
                throw new IllegalArgumentException("maxBlobBytes must be positive: " + maxBlobBytes);
            }
        }
    }

    private final XrpcClient client;
    private final Function<String, String> repoRef;
    private final Settings settings;
    private final Consumer<String> log;
    private final PublishQueue queue;
    private final Thread sender;
    private volatile boolean accepting = true;
    private volatile boolean running = true;
    /* Touched by the sender thread only. */
    private boolean reaching = true;

    /**
     * @param repoRef a check's {@code repo} to the repository's AT-URI, or its clone URL when it has none
     * @param log where lost checks and the PDS going away and coming back are said
     */
    public AtprotoCheckPublisher(XrpcClient client, Function<String, String> repoRef, Settings settings, Consumer<String> log) {
        this(client, repoRef, settings, Ticker.SYSTEM, () -> ThreadLocalRandom.current().nextDouble(), log);
    }

    AtprotoCheckPublisher(XrpcClient client, Function<String, String> repoRef, Settings settings, Ticker ticker,
            DoubleSupplier random, Consumer<String> log) {
        this.client = Objects.requireNonNull(client, "client");
        this.repoRef = Objects.requireNonNull(repoRef, "repoRef");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.log = Objects.requireNonNull(log, "log");
        this.queue = new PublishQueue(settings.capacity(), settings.retry(), ticker, random);
        this.sender = Thread.ofPlatform().daemon().name("atproto-check-publisher").unstarted(this::sendLoop);
        sender.start();
    }

    /** A run that starts is a record at once: people see it running, not only when it ended. */
    @Override
    public void started(Check check) throws IOException {
        publish(check);
    }

    @Override
    public void publish(Check check) throws IOException {
        if (!accepting) {
            throw new IOException("the ATProto check publisher is closed; check " + check.id() + " not queued");
        }
        if (!queue.offer(check)) {
            throw new IOException("the ATProto check publisher holds " + settings.capacity()
                    + " runs not yet sent (is the PDS at " + client.service() + " away?); check " + check.id() + " not queued");
        }
    }

    /** Whether every check given has been sent (or given up). */
    public boolean idle() {
        return queue.idle();
    }

    private void sendLoop() {
        while (running) {
            Optional<PublishQueue.Attempt> next;
            try {
                next = queue.awaitNext(TimeUnit.SECONDS.toNanos(1));
            } catch (InterruptedException e) {
                return;
            }
            if (next.isEmpty()) {
                continue;
            }
            PublishQueue.Attempt attempt = next.get();
            try {
                send(attempt.check());
                queue.succeeded(attempt);
                if (!reaching) {
                    reaching = true;
                    log.accept("ATProto: the PDS at " + client.service() + " answers again; " + queue.size() + " checks left to send");
                }
            } catch (IOException | RuntimeException e) {
                if (!running) {
                    return; // close() interrupted the call: the check stays queued and is reported as left
                }
                // 401: a login refused while renewing a session; tried again, as in send().
                boolean retryable = !(e instanceof XrpcException x) || x.retryable() || x.status() == 401;
                String error = OneLine.of(e);
                switch (queue.failed(attempt, error, retryable)) {
                    case PublishQueue.Outcome.Retry retry -> {
                        if (reaching) {
                            reaching = false;
                            log.accept("ATProto: cannot reach the PDS (" + error + "); checks wait and are sent when it answers");
                        }
                    }
                    case PublishQueue.Outcome.Refused refused -> log.accept("ATProto: the PDS refused check "
                            + attempt.runId() + " (" + attempt.check().status().wireName() + "): " + refused.reason());
                    case PublishQueue.Outcome.GaveUp gaveUp -> log.accept("ATProto: gave up on check " + attempt.runId() + " ("
                            + attempt.check().status().wireName() + ") after " + gaveUp.failingFor().toMinutes()
                            + " min of failures: " + gaveUp.reason());
                    case PublishQueue.Outcome.Sent sent -> { }
                }
            }
        }
    }

    /** Puts one state of a run; a final one with its log and outputs as blobs. */
    private void send(Check check) throws IOException {
        String did;
        try {
            did = client.session().did();
        } catch (XrpcException e) {
            // A login refused (a password changed, an account taken down) may be put right while
            // the runner goes on: tried again like an absent PDS, not dropped.
            throw new IOException(e.getMessage(), e);
        }
        Records.Blob logBlob = null;
        List<CheckRecords.OutputBlob> outputs = List.of();
        if (check.status().isFinal()) {
            logBlob = uploadIfSmall(check.log(), "text/plain");
            outputs = new ArrayList<>();
            for (Output o : check.outputs()) {
                outputs.add(new CheckRecords.OutputBlob(o.name(), o.mediaType(), o.bytes(), uploadIfSmall(o.path(), o.mediaType())));
            }
        }
        ObjectNode record = CheckRecords.of(check, repoRef.apply(check.repo()), logBlob, outputs);
        client.putRecord(did, CheckRecords.COLLECTION, RecordKeys.of(check.id()), record);
    }

    private Records.@Nullable Blob uploadIfSmall(@Nullable String path, String mimeType) throws IOException {
        if (path == null) {
            return null;
        }
        Path file = Path.of(path);
        if (!Files.isRegularFile(file) || Files.size(file) > settings.maxBlobBytes()) {
            return null;
        }
        return client.uploadBlob(file, mimeType, settings.maxBlobBytes());
    }

    /**
     * Stops taking checks, goes on sending what waits for up to the shutdown grace, then stops
     * and logs one line per check left unsent.
     */
    @Override
    public void close() {
        accepting = false;
        long deadline = System.nanoTime() + settings.shutdownGrace().toNanos();
        while (!queue.idle() && System.nanoTime() - deadline < 0) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        running = false;
        sender.interrupt();
        try {
            sender.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (PublishQueue.Left left : queue.drain()) {
            log.accept("ATProto: check " + left.check().id() + " (" + left.check().status().wireName()
                    + ") not published: the runner stopped" + (left.lastError() == null ? "" : " (last error: " + left.lastError() + ")"));
        }
    }

}
