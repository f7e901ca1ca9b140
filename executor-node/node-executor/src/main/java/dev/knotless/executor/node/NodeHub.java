package dev.knotless.executor.node;

import dev.knotless.executor.StopSignal;
import dev.knotless.node.channel.ChannelOptions;
import dev.knotless.node.channel.ChannelServer;
import dev.knotless.node.channel.Connection;
import dev.knotless.node.channel.Enrolment;
import dev.knotless.node.channel.PeerPins;
import dev.knotless.node.channel.Stream;
import dev.knotless.node.channel.TlsIdentity;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.Keyset;
import dev.knotless.node.protocol.NodeStatus;
import dev.knotless.node.protocol.ObservationVerifier;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.Report;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.PublicKey;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where nodes connect: the runner's listening end of the channel ({@code --node-listen}). The
 * runner never dials a node; it knows a node only while the node's connection is up. Each node
 * is pinned to its identity key ({@link NodesFile}), and every observation it sends is verified
 * under that key alone.
 *
 * <p>Concurrency: connections come and go on the channel's threads; {@link #link} and {@link
 * #awaitLink} may be called from any thread.
 */
public final class NodeHub implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NodeHub.class);

    private final ChannelServer server;
    private final Map<String, ObservationVerifier> verifiers = new ConcurrentHashMap<>();
    private final PeerPins pins;
    private final Clock clock;
    private final ConcurrentHashMap<String, Connection> links = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, List<String>> orphans = new ConcurrentHashMap<>();
    /** When each node was last connected (since this hub started): set on connect and on disconnect. */
    private final ConcurrentHashMap<String, java.time.Instant> lastSeen = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, String> keyIds = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Status> statuses = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, java.time.Instant> connectedAt = new ConcurrentHashMap<>();
    private volatile boolean closed;
    private final ProtocolJson json;
    private final Object changed = new Object();
    private final java.util.List<java.util.function.BiConsumer<String, List<String>>> connectListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    public NodeHub(InetSocketAddress listen, TlsIdentity runner, NodesFile nodes, ProtocolJson json, Clock clock,
            ChannelOptions options) throws IOException {
        this(listen, runner, nodes, json, clock, options, Optional.empty());
    }

    /**
     * With {@code enrolment}, nodes may also enrol on the same port with a one-time token
     * (docs/design/node-enrolment.md); an enrolled node is accepted at once, without a restart.
     */
    public NodeHub(InetSocketAddress listen, TlsIdentity runner, NodesFile nodes, ProtocolJson json, Clock clock,
            ChannelOptions options, Optional<NodeEnrolment> enrolment) throws IOException {
        this.json = json;
        this.clock = clock;
        this.pins = new PeerPins();
        nodes.nodes().forEach(this::admit);
        this.server = new ChannelServer(listen, runner, pins, this::connected, options,
                enrolment.<Enrolment.Desk>map(desk -> (request, key, from) -> desk.enrol(request, key, from, this::admit)).orElse(null));
    }

    /**
     * Accepts {@code node} under {@code key} from the next handshake on: its pin and its verifier.
     * Enrolment calls it after the node is in the nodes file.
     */
    public void admit(String node, PublicKey key) {
        String keyId = Ed25519Keys.keyIdOf(Ed25519Keys.raw(key));
        keyIds.put(node, keyId);
        verifiers.put(node, new ObservationVerifier(node, Keyset.single(keyId, key), json, clock));
        pins.pin(key, node);
        signalChange();
    }

    /** The node ids this hub accepts (the nodes file's, and those enrolled since it started). */
    public Set<String> known() {
        return new TreeSet<>(verifiers.keySet());
    }

    public InetSocketAddress address() {
        return server.address();
    }

    /**
     * Called with the node's id and the orphans it reports, each time a node has connected and sent
     * that report (its first word on every connection), on the thread serving the report.
     */
    public void onConnect(java.util.function.BiConsumer<String, List<String>> listener) {
        connectListeners.add(listener);
    }

    /**
     * A node's last status (signed, verified): its capacity and health, and how far its clock was
     * from this runner's when it arrived (positive: the node is ahead; the channel's own delay is in it).
     */
    public record Status(NodeStatus status, java.time.Instant received, Duration skew) {}

    /** The node's last status; empty if it sent none since this hub started (an older agent never does). */
    public Optional<Status> status(String node) {
        return Optional.ofNullable(statuses.get(node));
    }

    /**
     * Whether the node connected less than {@code grace} ago and has not sent its status on this
     * connection yet: a current agent sends it within milliseconds of connecting, so placement
     * waits for it rather than take the node's capacity as unknown.
     */
    public boolean statusPending(String node, Duration grace) {
        java.time.Instant since = connectedAt.get(node);
        if (since == null || link(node).isEmpty()) {
            return false;
        }
        Status last = statuses.get(node);
        boolean toldSince = last != null && !last.received().isBefore(since);
        return !toldSince && clock.instant().isBefore(since.plus(grace));
    }

    /** The node's connection, if it is connected now. */
    public Optional<Connection> link(String node) {
        return Optional.ofNullable(links.get(node)).filter(Connection::isOpen);
    }

    /** Waits up to {@code wait} for the node to be connected (again). */
    public Optional<Connection> awaitLink(String node, Duration wait, StopSignal signal) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (changed) {
            while (true) {
                Optional<Connection> now = link(node);
                if (now.isPresent() || signal.isStopped()) {
                    return now;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                changed.wait(Math.max(1, Math.min(200, left / 1_000_000)));
            }
        }
    }

    /**
     * Waits up to {@code wait} until every node of the nodes file is connected; returns whether all
     * are. A restarted runner's nodes dial it again on their own backoff.
     */
    public boolean awaitAll(Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        synchronized (changed) {
            while (!connected().containsAll(verifiers.keySet())) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.wait(Math.max(1, Math.min(200, left / 1_000_000)));
            }
            return true;
        }
    }

    /** The nodes connected now, by id. */
    public Set<String> connected() {
        Set<String> ids = new TreeSet<>();
        links.forEach((node, c) -> {
            if (c.isOpen()) {
                ids.add(node);
            }
        });
        return ids;
    }

    public ObservationVerifier verifier(String node) {
        ObservationVerifier v = verifiers.get(node);
        if (v == null) {
            throw new IllegalArgumentException("node " + node + " is not in the nodes file");
        }
        return v;
    }

    /** The orphans the node reported when it last connected (signed, verified). */
    public List<String> orphans(String node) {
        return orphans.getOrDefault(node, List.of());
    }

    /** Forgets reported orphans once they are deleted. */
    public void orphansDeleted(String node, List<String> deleted) {
        orphans.computeIfPresent(node, (n, list) -> list.stream().filter(a -> !deleted.contains(a)).toList());
    }

    /** When the node was last connected: now while it is; empty if not since this hub started. */
    public Optional<java.time.Instant> lastSeen(String node) {
        return link(node).isPresent() ? Optional.of(clock.instant()) : Optional.ofNullable(lastSeen.get(node));
    }

    public boolean isClosed() {
        return closed;
    }

    /** The key a node is pinned to, by its id: what its verifier trusts. */
    public Optional<String> keyIdOf(String node) {
        return Optional.ofNullable(keyIds.get(node));
    }

    private void connected(Connection c) {
        String node = c.peer();
        lastSeen.put(node, clock.instant());
        connectedAt.put(node, clock.instant());
        Connection old = links.put(node, c);
        if (old != null && old != c) {
            old.close();
        }
        LOG.info("node connected node={} protocol={}", node, c.tlsProtocol());
        c.onStream(stream -> report(node, stream));
        c.onClose(() -> {
            links.remove(node, c);
            lastSeen.put(node, clock.instant());
            LOG.info("node disconnected node={} reason={}", node, c.closeReason().orElse("closed"));
            signalChange();
        });
        signalChange();
    }

    /** A stream the node opened: its header is a signed report of the node's own. */
    private void report(String node, Stream stream) {
        try (stream) {
            ObservationVerifier.Verification v = verifier(node).verify(stream.header());
            switch (v) {
                case ObservationVerifier.Verification.Believed b when b.observation().report() instanceof Report.OrphansFound found -> {
                    orphans.put(node, found.allocations());
                    if (!found.allocations().isEmpty()) {
                        LOG.warn("node reports orphans node={} allocations={}", node, found.allocations());
                    }
                    // The node's first word on every connection: now it is known, with its orphans.
                    connectListeners.forEach(listener -> listener.accept(node, found.allocations()));
                }
                case ObservationVerifier.Verification.Believed b when b.observation().report() instanceof NodeStatus status -> {
                    java.time.Instant now = clock.instant();
                    Duration skew = Duration.ofMillis(b.observation().observedAt() - now.toEpochMilli());
                    statuses.put(node, new Status(status, now, skew));
                    LOG.info("node status node={} milliCpu={} memoryBytes={} freeDiskBytes={} runc={} cniPlugins={} skewMs={}", node,
                            status.capacity().milliCpu(), status.capacity().memoryBytes(), status.capacity().freeDiskBytes(),
                            status.health().runc(), status.health().cniPlugins().size(), skew.toMillis());
                    signalChange();
                }
                case ObservationVerifier.Verification.Believed b ->
                        LOG.warn("node sent an unexpected report node={} type={}", node, b.observation().report().getClass().getSimpleName());
                case ObservationVerifier.Verification.Refused r -> LOG.warn("node report refused node={} reason={}", node, r.reason());
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("node report unreadable node={} reason={}", node, e.getMessage());
        }
    }

    private void signalChange() {
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    @Override
    public void close() {
        closed = true;
        server.close();
        links.values().forEach(Connection::close);
    }

    ProtocolJson json() {
        return json;
    }
}
