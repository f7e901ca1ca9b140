package dev.knotless.node.process;

import dev.knotless.node.agent.Agent;
import dev.knotless.node.agent.Attachment;
import dev.knotless.node.channel.ChannelClient;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.Connection;
import dev.knotless.node.channel.PeerPins;
import dev.knotless.node.channel.Stream;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.protocol.Chunks;
import dev.knotless.node.protocol.NodeStatus;
import dev.knotless.node.protocol.Report;
import dev.knotless.node.protocol.TrustedKeys;
import dev.knotless.executor.toolkit.BlockOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.PublicKey;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's end of the channel: it dials the runner (the node opens no port), serves every
 * stream the runner opens as one signed action, and dials again, with backoff, whenever the
 * connection ends. Work in progress on the node (a running step) is not tied to the connection.
 *
 * <p>On every connection it first sends a signed report of its orphans, so the runner's sweep
 * can send the {@code delete_allocation}s that remove them, then its status ({@link NodeStatus}:
 * capacity and health), and the status again whenever it changes materially ({@link
 * HostStatus#material}), looked at every {@link #STATUS_CHECKS}.
 */
public final class AgentLink implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AgentLink.class);

    private final Agent agent;
    private final Callable<List<String>> orphans;
    private final Supplier<NodeStatus> status;
    private final String host;
    private final int port;
    private final TlsIdentity identity;
    private final TrustedKeys runnerKeys;
    private final ChannelOptions options;
    private volatile boolean closed;
    private volatile @Nullable Connection current;

    static final Duration STATUS_CHECKS = Duration.ofSeconds(30);

    public AgentLink(Agent agent, Callable<List<String>> orphans, Supplier<NodeStatus> status, String host, int port, TlsIdentity identity,
            TrustedKeys runnerKeys, ChannelOptions options) {
        this.agent = agent;
        this.orphans = orphans;
        this.status = status;
        this.host = host;
        this.port = port;
        this.identity = identity;
        this.runnerKeys = runnerKeys;
        this.options = options;
    }

    /**
     * Dials, serves, and dials again until {@link #close}. While no runner listens the node says so
     * once (info) and keeps dialling quietly ({@link DialBackoff}); other failures are warnings.
     */
    public void run() throws InterruptedException {
        DialBackoff backoff = new DialBackoff(RandomGenerator.getDefault());
        boolean toldNotListening = false;
        while (!closed) {
            Connection c;
            try {
                c = ChannelClient.connect(host, port, identity, pins(), options.handshakeTimeout(), options);
            } catch (ChannelClient.NotListening e) {
                if (!toldNotListening) {
                    LOG.info("no runner listens yet server={}:{}; dialling every {} ms or less until one does reason={}", host, port,
                            DialBackoff.NOT_LISTENING_CAP.toMillis(), e.getMessage());
                    toldNotListening = true;
                }
                Thread.sleep(backoff.after(true).toMillis());
                continue;
            } catch (IOException | RuntimeException e) {
                Duration wait = backoff.after(false);
                LOG.warn("cannot reach the runner server={}:{} retryIn={}ms reason={}", host, port, wait.toMillis(), e.getMessage());
                Thread.sleep(wait.toMillis());
                continue;
            }
            backoff.reset();
            toldNotListening = false;
            current = c;
            CountDownLatch ended = new CountDownLatch(1);
            c.onClose(ended::countDown);
            c.onStream(this::serve);
            LOG.info("connected to the runner server={}:{} protocol={}", host, port, c.tlsProtocol());
            reportOrphans(c);
            NodeStatus told = reportStatus(c, null);
            while (!ended.await(STATUS_CHECKS.toMillis(), TimeUnit.MILLISECONDS)) {
                told = reportStatus(c, told);
            }
            // Routine between one-shot runs; the reason says whether it was anything more.
            LOG.info("runner connection ended reason={}", c.closeReason().orElse("closed"));
        }
    }

    /** Drops the current connection, as a network fault would; the link dials again. */
    public void dropConnection() {
        Connection c = current;
        if (c != null) {
            c.close();
        }
    }

    private PeerPins pins() {
        PeerPins pins = new PeerPins();
        for (PublicKey key : runnerKeys.all()) {
            pins.pin(key, "runner");
        }
        return pins;
    }

    private void reportOrphans(Connection c) {
        try {
            List<String> found = orphans.call();
            if (!found.isEmpty()) {
                LOG.warn("orphans found allocations={}", found);
            }
            try (Stream s = c.open(agent.sign(new Report.OrphansFound(found)))) {
                s.out().close();
            }
        } catch (Exception e) {
            LOG.warn("orphan report not sent reason={}", e.getMessage());
        }
    }

    /** Sends the status if nothing was told yet on this connection or it changed materially; returns what the runner knows. */
    private @Nullable NodeStatus reportStatus(Connection c, @Nullable NodeStatus told) {
        try {
            NodeStatus now = status.get();
            if (told != null && !HostStatus.material(told, now)) {
                return told;
            }
            try (Stream s = c.open(agent.sign(now))) {
                s.out().close();
            }
            LOG.info("status reported milliCpu={} memoryBytes={} freeDiskBytes={} runc={} cniPlugins={}", now.capacity().milliCpu(),
                    now.capacity().memoryBytes(), now.capacity().freeDiskBytes(), now.health().runc(), now.health().cniPlugins());
            return now;
        } catch (Exception e) {
            LOG.warn("status report not sent reason={}", e.getMessage());
            return told;
        }
    }

    /** One stream is one action: the frame is its header; chunks and the signed answer go back. */
    private void serve(Stream stream) {
        Chunks.Writer writer = new Chunks.Writer(stream.out());
        Attachment attachment = new Attachment() {
            @Override
            public InputStream body() {
                return stream.in();
            }

            @Override
            public OutputStream data() {
                return new BlockOutputStream() {
                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        writer.write(Chunks.Kind.DATA, b, off, len);
                    }
                };
            }

            @Override
            public StepOutput output() {
                return new StepOutput() {
                    @Override
                    public void stdout(byte[] buffer, int offset, int length) throws IOException {
                        writer.write(Chunks.Kind.STDOUT, buffer, offset, length);
                    }

                    @Override
                    public void stderr(byte[] buffer, int offset, int length) throws IOException {
                        writer.write(Chunks.Kind.STDERR, buffer, offset, length);
                    }
                };
            }
        };
        byte[] answer = agent.answer(stream.header(), attachment);
        try {
            writer.write(Chunks.Kind.ANSWER, answer, 0, answer.length);
            stream.out().close();
        } catch (IOException e) {
            LOG.info("answer not delivered (the runner went away) reason={}", e.getMessage());
        }
    }

    @Override
    public void close() {
        closed = true;
        dropConnection();
    }
}
