package dev.knotless.executor.node;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.ResumedSession;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.ShellPayload;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.toolkit.StepStopper;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Chunks;
import dev.knotless.node.protocol.Result;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run's allocation on a node. The guard above the seam ({@code Guarded}) checks closed
 * sessions, early stops, paths and failing sinks; this class only talks to the node. Steps outlive the link: when the connection breaks mid-step the
 * session waits for the node to dial back (up to the reattach window) and sends {@code run_step}
 * again with the byte offsets it already has, which attaches to the running step on the node.
 * Steps outlive the runner too: a session found again by {@link NodeExecutor#resume} follows the
 * step an earlier process sent the same way, trying the steps the allocation holds, newest first;
 * the node refuses a number that was started with another payload and runs nothing for it.
 */
final class NodeSession implements ResumedSession {

    private static final Logger LOG = LoggerFactory.getLogger(NodeSession.class);
    /** The node's own upper bound on an upload; the runner's limits are applied by the tar source. */
    private static final long UPLOAD_BOUND = 1L << 40;

    private final NodeExecutor executor;
    private final RunSpec spec;
    private final String node;
    private final String allocation;
    /** The steps an earlier process of the runner started in the allocation, newest first. */
    private final List<Integer> earlier;
    private int steps;

    NodeSession(NodeExecutor executor, RunSpec spec, String node, String allocation, List<Integer> earlier) {
        this.executor = executor;
        this.spec = spec;
        this.node = node;
        this.allocation = allocation;
        this.earlier = earlier.stream().sorted(Comparator.reverseOrder()).toList();
        this.steps = earlier.stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    @Override
    public String describe() {
        return "allocation " + allocation + " on node " + node;
    }

    // ---- services ------------------------------------------------------------------------------

    @Override
    public void serviceLog(String service, long maxBytes, OutputSink output, StopSignal signal) throws ExecutorException {
        Result.ServiceLog log = transfer(new Action.ReadServiceLog(node, allocation, service,
                        (int) Math.min(maxBytes, Action.MAX_SERVICE_LOG)), Result.ServiceLog.class, null, NodeCalls.ChunkHandler.NONE,
                signal, "log of service '" + service + "'");
        byte[] bytes = log.log();
        if (bytes.length > 0) {
            output.write(OutputSink.Stream.STDOUT, bytes, 0, bytes.length);
        }
    }

    // ---- upload --------------------------------------------------------------------------------

    @Override
    public void upload(String path, TarSource tar, StopSignal signal) throws ExecutorException {
        MessageDigest sha = sha256();
        long[] sent = {0};
        TarSource counted = out -> {
            OutputStream counting = new DigestOutputStream(out, sha) {
                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    super.write(b, off, len);
                    sent[0] += len;
                }
            };
            // The tar writer writes 512-byte records: gathered before the digest, each update and
            // each write to the stream below is a whole frame's worth.
            OutputStream gathered = new BufferedOutputStream(counting, Chunks.MAX_DATA);
            tar.writeTo(gathered);
            gathered.flush();
        };
        Result.Received received = transfer(new Action.Upload(node, allocation, path, UPLOAD_BOUND), Result.Received.class,
                counted, NodeCalls.ChunkHandler.NONE, signal, "upload to " + path);
        String hex = HexFormat.of().formatHex(sha.digest());
        if (received.bytes() != sent[0] || !received.sha256().equals(hex)) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "node " + node + " received " + received.bytes()
                    + " bytes (sha256 " + received.sha256() + ") of the upload to " + path + ", not the " + sent[0] + " sent");
        }
    }

    // ---- download ------------------------------------------------------------------------------

    @Override
    public void download(String path, TarSink sink, StopSignal signal) throws ExecutorException {
        Pipe pipe;
        try {
            pipe = Pipe.open();
        } catch (IOException e) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "download of " + path + ": " + e.getMessage());
        }
        MessageDigest sha = sha256();
        long[] received = {0};
        AtomicReference<Exception> sinkFailure = new AtomicReference<>();
        OutputStream toSink = Channels.newOutputStream(pipe.sink());
        Thread reader = Thread.ofVirtual().start(() -> {
            try (InputStream in = Channels.newInputStream(pipe.source())) {
                sink.readFrom(in);
                in.transferTo(OutputStream.nullOutputStream());
            } catch (Exception e) {
                sinkFailure.set(e);
                try {
                    pipe.source().close();
                } catch (IOException ignored) {
                    // closing is all that is wanted
                }
            }
        });
        Result.Downloaded d;
        try {
            d = transfer(new Action.Download(node, allocation, path), Result.Downloaded.class, null, chunk -> {
                if (chunk.kind() != Chunks.Kind.DATA) {
                    throw new IOException("unexpected " + chunk.kind() + " chunk in a download");
                }
                sha.update(chunk.bytes());
                received[0] += chunk.bytes().length;
                if (sinkFailure.get() == null) {
                    try {
                        toSink.write(chunk.bytes());
                    } catch (IOException e) {
                        // the sink stopped reading; its own failure is what matters
                    }
                }
            }, signal, "download of " + path);
        } finally {
            try {
                toSink.close();
            } catch (IOException ignored) {
                // the reader may have closed its end
            }
            join(reader);
        }
        Exception failed = sinkFailure.get();
        if (failed instanceof TransferLimitException e) {
            throw new ExecutorException(Failure.Kind.LIMIT, e.getMessage());
        }
        if (failed != null) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "download of " + path + ": " + failed.getMessage());
        }
        if (d.bytes() != received[0] || !d.sha256().equals(HexFormat.of().formatHex(sha.digest()))) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "node " + node + " sent " + d.bytes()
                    + " bytes of the download of " + path + " but " + received[0] + " arrived, or with another digest");
        }
    }

    private <R extends Result> R transfer(Action action, Class<R> expected, @Nullable TarSource body,
            NodeCalls.ChunkHandler handler, StopSignal signal, String what) throws ExecutorException {
        try {
            return executor.calls().call(node, action, expected, body, handler, signal);
        } catch (TransferLimitException e) {
            throw new ExecutorException(Failure.Kind.LIMIT, e.getMessage());
        } catch (NodeCalls.Refused e) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, e.getMessage());
        } catch (NodeCalls.LinkLost e) {
            ExecutorException.throwIfStopped(signal, what);
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, what + ": " + e.getMessage());
        }
    }

    // ---- run -----------------------------------------------------------------------------------

    @Override
    public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
        return stream(++steps, step, 0, 0, false, output, signal).orElseThrow();
    }

    @Override
    public Optional<StepOutcome> follow(StepPayload step, long stdoutFrom, long stderrFrom, OutputSink output,
            StopSignal signal) {
        for (int number : earlier) {
            Optional<StepOutcome> followed = stream(number, step, stdoutFrom, stderrFrom, true, output, signal);
            if (followed.isPresent()) {
                LOG.info("step followed after a restart node={} allocation={} step={}", node, allocation, number);
                return followed;
            }
        }
        return Optional.empty();
    }

    /**
     * Sends {@code run_step} for step {@code number} and streams it to its end, reattaching when the
     * link breaks. When {@code onlyIfThere}, a refusal means the node holds another step under that
     * number (or none), and the answer is empty rather than a failed step.
     */
    private Optional<StepOutcome> stream(int number, StepPayload step, long stdoutFrom, long stderrFrom, boolean onlyIfThere,
            OutputSink output, StopSignal signal) {
        // Sorted, so that a runner restarted with the same step sends the same bytes, which the node recognises.
        byte[] payload = ShellPayload.framed(new TreeMap<>(step.environment()), step.command());
        long timeoutMs = Math.min(Action.MAX_STEP_TIMEOUT_MS, Math.max(1, spec.timeout().plus(spec.killGrace()).toMillis()));
        AtomicReference<Runnable> cut = new AtomicReference<>(() -> {});
        StepStopper stopper = new StepStopper(this::signalSteps, spec.killGrace(), () -> cut.get().run());
        long[] offsets = {stdoutFrom, stderrFrom};
        NodeCalls.ChunkHandler handler = chunk -> {
            switch (chunk.kind()) {
                case STDOUT -> {
                    output.write(OutputSink.Stream.STDOUT, chunk.bytes(), 0, chunk.bytes().length);
                    offsets[0] += chunk.bytes().length;
                }
                case STDERR -> {
                    output.write(OutputSink.Stream.STDERR, chunk.bytes(), 0, chunk.bytes().length);
                    offsets[1] += chunk.bytes().length;
                }
                default -> throw new IOException("unexpected " + chunk.kind() + " chunk in a step");
            }
        };
        long lostSince = 0;
        try (StopSignal.Registration registration = signal.onStop(stopper::requested)) {
            stopper.started();
            while (true) {
                StopSignal streamStop = new StopSignal();
                cut.set(() -> streamStop.stop(StopSignal.Reason.CANCELLED));
                try {
                    Result.StepExited exited = executor.calls().call(node, new Action.RunStep(node, allocation, number, payload,
                            timeoutMs, offsets[0], offsets[1]), Result.StepExited.class, null, handler, streamStop);
                    Optional<StopSignal.Reason> stopped = stopper.finish();
                    if (stopped.isPresent()) {
                        return Optional.of(StepOutcome.stopped(stopped.get()));
                    }
                    if (exited.stdoutBytes() != offsets[0] || exited.stderrBytes() != offsets[1]) {
                        return Optional.of(failed(Failure.Kind.LOST, "step '" + step.name() + "': node " + node + " reports "
                                + exited.stdoutBytes() + "/" + exited.stderrBytes() + " bytes of output, " + offsets[0] + "/"
                                + offsets[1] + " arrived"));
                    }
                    return Optional.of(new StepOutcome.Exited(exited.exitCode()));
                } catch (NodeCalls.Refused e) {
                    Optional<StopSignal.Reason> stopped = stopper.finish();
                    if (stopped.isPresent()) {
                        return Optional.of(StepOutcome.stopped(stopped.get()));
                    }
                    if (onlyIfThere) {
                        LOG.info("step not followed node={} allocation={} step={} reason={}", node, allocation, number, e.getMessage());
                        return Optional.empty();
                    }
                    return Optional.of(failed(Failure.Kind.INFRASTRUCTURE, "step '" + step.name() + "': " + e.getMessage()));
                } catch (TransferLimitException e) {
                    return Optional.of(failed(Failure.Kind.LIMIT, e.getMessage()));
                } catch (NodeCalls.LinkLost e) {
                    if (streamStop.isStopped()) {
                        // The stopper cut the stream as its last resort.
                        Optional<StopSignal.Reason> stopped = stopper.finish();
                        return Optional.of(StepOutcome.stopped(stopped.orElse(StopSignal.Reason.CANCELLED)));
                    }
                    if (lostSince == 0) {
                        lostSince = System.nanoTime();
                    }
                    Duration left = executor.options().reattachWindow().minusNanos(System.nanoTime() - lostSince);
                    LOG.warn("step stream lost node={} allocation={} step={} stdoutOffset={} stderrOffset={} reason={}",
                            node, allocation, number, offsets[0], offsets[1], e.getMessage());
                    if (left.isNegative() || !awaitNode(left, signal)) {
                        Optional<StopSignal.Reason> stopped = stopper.finish();
                        if (stopped.isPresent()) {
                            return Optional.of(StepOutcome.stopped(stopped.get()));
                        }
                        return Optional.of(failed(Failure.Kind.LOST, "step '" + step.name() + "': node " + node
                                + " went away and did not come back within " + executor.options().reattachWindow().toSeconds() + " s"));
                    }
                    LOG.info("step reattaching node={} allocation={} step={} stdoutOffset={} stderrOffset={}",
                            node, allocation, number, offsets[0], offsets[1]);
                }
            }
        }
    }

    private boolean awaitNode(Duration left, StopSignal signal) {
        try {
            return executor.hub().awaitLink(node, left, signal).isPresent();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The stopper's killer: TERM gives the node the kill grace before its own KILL; KILL is at once. */
    private void signalSteps(String signal) throws Exception {
        long grace = signal.equals("TERM") ? spec.killGrace().toMillis() : 0;
        executor.calls().call(node, new Action.StopAllocation(node, allocation, Math.min(grace, Action.MAX_STOP_GRACE_MS), true),
                Result.Done.class);
    }

    // ---- close ---------------------------------------------------------------------------------

    @Override
    public void close() {
        if (spec.keep()) {
            LOG.info("allocation kept node={} allocation={} run={}", node, allocation, spec.runId());
            return;
        }
        executor.delete(node, allocation);
    }

    // ---- helpers -------------------------------------------------------------------------------

    private static StepOutcome failed(Failure.Kind kind, String reason) {
        return new StepOutcome.Failed(new Failure(kind, reason));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void join(Thread t) {
        try {
            t.join(Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
