package dev.knotless.node.cni;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.node.host.HostCommand;
import dev.knotless.text.OneLine;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The node's one allocation network: a Linux bridge with addresses from host-local IPAM. Attaching
 * runs the standard CNI plugins in a chain, {@code bridge} (IPAM {@code host-local}, the bridge as
 * gateway, masquerade for outbound) then {@code firewall} (accepts the container's forwarded traffic
 * on hosts whose FORWARD policy drops, as Docker's does); detaching runs DEL in reverse. Nothing here
 * sets up an interface, an address or a rule itself: that is the plugins' work.
 *
 * <p>State under {@code stateDir}: {@code ipam/} (host-local's leases), {@code attachments/} (one
 * record per container with the cached CNI result) and {@code netns/} (the pinned namespaces, see
 * {@link NetnsPins}). One agent per state directory; calls for the same container are serialized.
 */
public final class CniNetwork {

    private static final Pattern NETWORK_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    private static final Pattern BRIDGE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,14}");
    private static final Pattern SUBNET = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})/(\\d{1,2})");
    private static final List<String> PLUGINS = List.of(NetworkConfig.BRIDGE, NetworkConfig.HOST_LOCAL, NetworkConfig.FIREWALL);

    private final CniPlugins plugins;
    private final NetworkConfig config;
    private final AttachmentRecords records;
    private final NetnsPins pins;
    private final HostLocalLeases leases;
    private final ReentrantLock[] locks = new ReentrantLock[64];

    /** A container on the network: its address on the bridge, the prefix length and the bridge's address. */
    public record Attachment(String containerId, String address, int prefixLength, String gateway) {}

    /**
     * @param pluginDir   the CNI plugin binaries, e.g. {@code /usr/lib/cni}
     * @param stateDir    holds host-local's data directory, the attachment records and the namespace pins
     * @param networkName the CNI network name, e.g. {@code knotless}
     * @param bridge      the bridge interface, e.g. {@code knotless0} (at most 15 characters)
     * @param subnet      an IPv4 subnet, e.g. {@code 10.213.0.0/24}
     * @param timeout     how long one plugin (or mount) may run before it is killed
     */
    public CniNetwork(Path pluginDir, Path stateDir, String networkName, String bridge, String subnet, Duration timeout) {
        if (networkName == null || !NETWORK_NAME.matcher(networkName).matches()) {
            throw new IllegalArgumentException("not a network name: \"" + networkName
                    + "\" (a letter or digit, then up to 63 letters, digits, '_', '.' or '-')");
        }
        if (bridge == null || !BRIDGE_NAME.matcher(bridge).matches()) {
            throw new IllegalArgumentException("not a bridge name: \"" + bridge
                    + "\" (a letter or digit, then letters, digits, '_', '.' or '-'; 15 characters at most)");
        }
        requireSubnet(subnet);
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the plugin timeout must be positive, not " + timeout);
        }
        Path state = stateDir.toAbsolutePath().normalize();
        this.plugins = new CniPlugins(pluginDir, timeout);
        this.config = new NetworkConfig(networkName, bridge, subnet, state.resolve("ipam"));
        this.records = new AttachmentRecords(state.resolve("attachments"));
        this.pins = new NetnsPins(state.resolve("netns"), timeout);
        this.leases = new HostLocalLeases(config.leaseDir());
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new ReentrantLock();
        }
    }

    /**
     * CNI ADD of container {@code containerId} into the network namespace at {@code netns} (e.g.
     * {@code /proc/<pid>/ns/net}), interface {@code eth0}. Idempotent: attaching an already attached
     * container returns the recorded attachment; if a crash left a half-done ADD, that is deleted and
     * the ADD runs again. A container attached to another namespace is refused.
     */
    public Attachment attach(String containerId, Path netns) throws NetworkException {
        ContainerIds.require(containerId);
        ReentrantLock lock = lockFor(containerId);
        lock.lock();
        try {
            Optional<AttachmentRecords.Entry> recorded = records.read(containerId);
            if (recorded.isPresent() && recorded.get().complete()) {
                if (!pins.holds(containerId, netns)) {
                    throw new NetworkException("container " + containerId + " is attached to another network namespace than "
                            + netns + "; detach it first");
                }
                return attachment(containerId, recorded.get().result());
            }
            plugins.require(PLUGINS);
            NetnsPins.requireContainerNamespace(netns);
            if (recorded.isPresent() || pins.exists(containerId) || leases.held(containerId)) {
                delete(containerId, recorded.map(AttachmentRecords.Entry::result));
            }
            try {
                Path pin = pins.pin(containerId, netns);
                JsonNode result = plugins.run(NetworkConfig.BRIDGE, CniPlugins.Command.ADD, containerId, Optional.of(pin),
                                config.bridge(Optional.empty()))
                        .orElseThrow(() -> new NetworkException("CNI plugin bridge ADD for container " + containerId
                                + " succeeded but printed no result"));
                Attachment attachment = attachment(containerId, result);
                records.write(containerId, new AttachmentRecords.Entry(result, false));
                plugins.run(NetworkConfig.FIREWALL, CniPlugins.Command.ADD, containerId, Optional.of(pin),
                        config.firewall(Optional.of(result)));
                records.write(containerId, new AttachmentRecords.Entry(result, true));
                return attachment;
            } catch (NetworkException failed) {
                throw undo(containerId, failed);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * CNI DEL. The namespace may be gone ({@link Optional#empty()}): the pinned one is used when
     * there is one, and without any DEL still releases the address. Idempotent: detaching a container
     * that is not attached succeeds (and needs no plugin).
     */
    public void detach(String containerId, Optional<Path> netns) throws NetworkException {
        ContainerIds.require(containerId);
        ReentrantLock lock = lockFor(containerId);
        lock.lock();
        try {
            Optional<JsonNode> cached = Optional.empty();
            boolean damaged = false;
            try {
                cached = records.read(containerId).map(AttachmentRecords.Entry::result);
            } catch (NetworkException e) {
                // A record that cannot be read must not make the address unreleasable: DEL without it.
                damaged = true;
            }
            boolean held = damaged || cached.isPresent() || pins.exists(containerId) || leases.held(containerId);
            if (!held) {
                return;
            }
            Optional<Path> given = netns.filter(p -> p.toFile().exists());
            if (given.isPresent()) {
                NetnsPins.requireContainerNamespace(given.get());
            }
            plugins.require(PLUGINS);
            delete(containerId, cached, given);
        } finally {
            lock.unlock();
        }
    }

    /** Container ids that hold an address, an attachment record or a pinned namespace (to find orphans). */
    public Set<String> holders() throws NetworkException {
        Set<String> ids = new TreeSet<>(records.ids());
        ids.addAll(pins.ids());
        ids.addAll(leases.leases().values());
        return ids;
    }

    /** The plugins' stdin for ADD, as bytes (deterministic: the same network gives the same bytes). */
    byte[] addConfig() {
        return config.bridge(Optional.empty());
    }

    private void delete(String containerId, Optional<JsonNode> cached) throws NetworkException {
        delete(containerId, cached, Optional.empty());
    }

    /**
     * DEL in reverse chain order, each with the cached result; then the record and the pin go. With
     * no usable record the previous result is rebuilt from host-local's lease: the firewall plugin's
     * DEL removes the rules of the addresses in {@code prevResult} and does nothing without one.
     */
    private void delete(String containerId, Optional<JsonNode> cached, Optional<Path> given) throws NetworkException {
        Optional<Path> netns = pins.mounted(containerId) ? Optional.of(pins.path(containerId)) : given;
        Optional<JsonNode> previous = cached.isPresent() ? cached : config.resultFromLeases(containerId, leases.leases());
        plugins.run(NetworkConfig.FIREWALL, CniPlugins.Command.DEL, containerId, netns, config.firewall(previous));
        plugins.run(NetworkConfig.BRIDGE, CniPlugins.Command.DEL, containerId, netns, config.bridge(previous));
        records.delete(containerId);
        pins.unpin(containerId);
    }

    /**
     * After a failed ADD, the spec's cleanup: DEL what may have been added. Returns the ADD's error,
     * extended by the cleanup's if that failed too (then {@link #holders()} still lists the container).
     */
    private NetworkException undo(String containerId, NetworkException failed) {
        try {
            Optional<JsonNode> cached;
            try {
                cached = records.read(containerId).map(AttachmentRecords.Entry::result);
            } catch (NetworkException unreadable) {
                cached = Optional.empty();
            }
            delete(containerId, cached);
            return failed;
        } catch (NetworkException cleanup) {
            return new NetworkException(failed.getMessage() + "; undoing it failed too: " + cleanup.getMessage());
        }
    }

    /** The container's IPv4 address from a CNI result: the first on an interface inside a sandbox. */
    private static Attachment attachment(String containerId, JsonNode result) throws NetworkException {
        JsonNode interfaces = result.path("interfaces");
        JsonNode chosen = null;
        for (JsonNode ip : result.path("ips")) {
            String address = ip.path("address").asText("");
            if (!SUBNET.matcher(address).matches()) {
                continue; // not IPv4
            }
            JsonNode iface = ip.has("interface") ? interfaces.path(ip.path("interface").asInt()) : null;
            boolean inContainer = iface != null && !iface.path("sandbox").asText("").isEmpty();
            if (chosen == null || inContainer) {
                chosen = ip;
                if (inContainer) {
                    break;
                }
            }
        }
        if (chosen == null) {
            throw new NetworkException("CNI plugin bridge ADD for container " + containerId + " returned no IPv4 address: "
                    + OneLine.of(result.toString(), 400));
        }
        String[] cidr = chosen.path("address").asText().split("/");
        return new Attachment(containerId, cidr[0], Integer.parseInt(cidr[1]), chosen.path("gateway").asText(""));
    }

    private static void requireSubnet(String subnet) {
        Matcher m = subnet == null ? null : SUBNET.matcher(subnet);
        if (m == null || !m.matches()) {
            throw new IllegalArgumentException("not an IPv4 subnet: \"" + subnet + "\" (e.g. 10.213.0.0/24)");
        }
        long address = 0;
        for (int i = 1; i <= 4; i++) {
            int octet = Integer.parseInt(m.group(i));
            if (octet > 255) {
                throw new IllegalArgumentException("not an IPv4 subnet: \"" + subnet + "\" (" + octet + " is not an octet)");
            }
            address = address << 8 | octet;
        }
        int prefix = Integer.parseInt(m.group(5));
        if (prefix < 8 || prefix > 30) {
            throw new IllegalArgumentException("subnet " + subnet + ": the prefix must be /8 to /30 (room for a gateway and containers)");
        }
        long hostMask = (1L << (32 - prefix)) - 1;
        if ((address & hostMask) != 0) {
            throw new IllegalArgumentException("subnet " + subnet + " has host bits set; the network address is "
                    + dotted(address & ~hostMask) + "/" + prefix);
        }
    }

    private static String dotted(long a) {
        return (a >> 24 & 255) + "." + (a >> 16 & 255) + "." + (a >> 8 & 255) + "." + (a & 255);
    }

    private ReentrantLock lockFor(String containerId) {
        return locks[Math.floorMod(containerId.hashCode(), locks.length)];
    }
}
