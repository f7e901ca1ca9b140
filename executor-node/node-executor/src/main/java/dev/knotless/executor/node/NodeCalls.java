package dev.knotless.executor.node;

import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSource;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.node.channel.Connection;
import dev.knotless.node.channel.Stream;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Chunks;
import dev.knotless.node.protocol.Envelope;
import dev.knotless.node.protocol.ObservationVerifier;
import dev.knotless.node.protocol.Outcome;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.protocol.Signer;
import java.io.IOException;
import java.io.OutputStream;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Sends one signed action to a node and believes only its signed answer. Each call is one stream:
 * the frame is the stream's header, an upload's tar follows it, and the node's chunks come back
 * (output, data) ending with the answer, which must verify under the node's identity key and name
 * the exact frame sent.
 *
 * <p>Every call gets a fresh idempotency key and a short window, so a retry after a lost
 * connection is a new envelope; that is safe because every runtime operation on the node is
 * idempotent by itself (docs/design/node.md).
 */
final class NodeCalls {

    /** How long an envelope is valid; the agent allows at most five minutes. */
    static final Duration WINDOW = Duration.ofMinutes(2);

    /** Receives what the node sends before its answer. */
    interface ChunkHandler {
        void chunk(Chunks.Chunk chunk) throws IOException;

        ChunkHandler NONE = chunk -> {
            throw new IOException("unexpected " + chunk.kind() + " chunk");
        };
    }

    /** The connection or the stream broke before an answer came: the node may still be working. */
    static final class LinkLost extends Exception {
        LinkLost(String message, @Nullable Throwable cause) {
            super(message, cause);
        }
    }

    /** The node answered that it refused or failed the action (or its answer did not verify). */
    static class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    /**
     * The node's signed answer verified but carries another result than the action has: a node
     * that does not speak this protocol, not a failure of the action.
     */
    static final class WrongAnswer extends Refused {
        WrongAnswer(String message) {
            super(message);
        }
    }

    private final NodeHub hub;
    private final Signer signer;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    NodeCalls(NodeHub hub, Signer signer, Clock clock) {
        this.hub = hub;
        this.signer = signer;
        this.clock = clock;
    }

    <R extends Result> R call(String node, Action action, Class<R> expected) throws LinkLost, Refused, TransferLimitException {
        return call(node, action, expected, null, ChunkHandler.NONE, StopSignal.none());
    }

    /**
     * @param expected the result the action has ({@code step_exited} for {@code run_step}, …)
     * @param body     what follows the frame (an upload's tar), or null
     * @throws WrongAnswer            when the node's answer carries another result
     * @throws TransferLimitException when {@code body} went over its limit (the stream is reset)
     */
    <R extends Result> R call(String node, Action action, Class<R> expected, @Nullable TarSource body, ChunkHandler handler,
            StopSignal signal) throws LinkLost, Refused, TransferLimitException {
        long now = clock.millis();
        byte[] frame = signer.sign(Envelope.of(node, now, now + WINDOW.toMillis(), idempotencyKey(), action));
        Connection link = hub.link(node).orElseThrow(() -> new LinkLost("node " + node + " is not connected", null));
        Stream stream;
        try {
            stream = link.open(frame);
        } catch (IOException e) {
            throw new LinkLost("node " + node + ": " + e.getMessage(), e);
        }
        AtomicReference<TransferLimitException> overLimit = new AtomicReference<>();
        Thread writer = body == null ? null : Thread.ofVirtual().start(() -> {
            // Tar writers write 512-byte records; gathered here, they travel as full frames.
            try (OutputStream out = new java.io.BufferedOutputStream(stream.out(), Chunks.MAX_DATA)) {
                body.writeTo(out);
            } catch (TransferLimitException e) {
                overLimit.set(e);
                stream.reset("over the limit: " + e.getMessage());
            } catch (IOException | RuntimeException e) {
                stream.reset("upload source failed: " + e.getMessage());
            }
        });
        try (StopSignal.Registration stop = signal.onStop(why -> stream.reset("stopped: " + why.name().toLowerCase()))) {
            if (writer == null) {
                stream.out().close();
            }
            Chunks.Reader reader = new Chunks.Reader(stream.in());
            while (true) {
                Optional<Chunks.Chunk> chunk = reader.next();
                if (chunk.isEmpty()) {
                    throw new IOException("the node ended the stream without an answer");
                }
                if (chunk.get().kind() == Chunks.Kind.ANSWER) {
                    return believe(hub.verifier(node), node, action, expected, chunk.get().bytes(), frame);
                }
                handler.chunk(chunk.get());
            }
        } catch (IOException e) {
            joinQuietly(writer);
            if (overLimit.get() != null) {
                throw overLimit.get();
            }
            throw new LinkLost("node " + node + ": " + e.getMessage(), e);
        } finally {
            if (writer != null && writer.isAlive()) {
                // The node answered before reading all of the body: it will not read the rest.
                stream.reset("answered");
                joinQuietly(writer);
            }
        }
    }

    /**
     * The result in the node's answer to {@code sent}, if the answer verifies, is an outcome of the
     * action, and carries the result the action has.
     */
    static <R extends Result> R believe(ObservationVerifier verifier, String node, Action action, Class<R> expected,
            byte[] answer, byte[] sent) throws Refused {
        Outcome outcome = switch (verifier.verifyAnswer(answer, sent)) {
            case ObservationVerifier.Verification.Refused r ->
                    throw new Refused("answer from node " + node + " not believed: " + r.reason());
            case ObservationVerifier.Verification.Believed b when b.observation().report() instanceof Outcome o -> o;
            case ObservationVerifier.Verification.Believed b -> throw new WrongAnswer("node " + node + " answered "
                    + ProtocolJson.typeName(action.getClass()) + " with report "
                    + ProtocolJson.typeName(b.observation().report().getClass()) + ", not an outcome");
        };
        Result result = switch (outcome) {
            case Outcome.Executed e -> e.result();
            case Outcome.Replayed r -> r.result();
            case Outcome.Rejected r -> throw new Refused("node " + node + " rejected the action (" + r.reason().wireName() + "): " + r.detail());
            case Outcome.Failed f -> throw new Refused(f.message());
        };
        if (!expected.isInstance(result)) {
            throw new WrongAnswer("node " + node + " answered " + ProtocolJson.typeName(action.getClass()) + " with result "
                    + ProtocolJson.typeName(result.getClass()) + ", not " + ProtocolJson.typeName(expected));
        }
        return expected.cast(result);
    }

    private String idempotencyKey() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return "k-" + HexFormat.of().formatHex(bytes);
    }

    private static void joinQuietly(@Nullable Thread t) {
        if (t == null) {
            return;
        }
        try {
            t.join(Duration.ofSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
