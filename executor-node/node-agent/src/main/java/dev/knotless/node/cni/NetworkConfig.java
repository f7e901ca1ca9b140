package dev.knotless.node.cni;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * The network's plugin chain and the exact bytes each plugin reads on stdin. The chain is
 * {@code bridge} (with {@code host-local} as its IPAM) then {@code firewall}; each plugin's
 * configuration is built as the CNI spec says a runtime builds it from a network configuration list:
 * the list's {@code cniVersion} and {@code name}, the plugin's own object, and {@code prevResult}.
 * Objects are written with sorted keys and no whitespace, so the same inputs give the same bytes.
 */
final class NetworkConfig {

    static final String CNI_VERSION = "1.0.0";
    static final String BRIDGE = "bridge";
    static final String HOST_LOCAL = "host-local";
    static final String FIREWALL = "firewall";

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    // Every object's keys in sorted order (arrays keep theirs: order is meaning), so equal configs are equal bytes.
    private static final ObjectMapper MAPPER = JsonMapper.builder().enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED).build();

    private final String name;
    private final String bridge;
    private final String subnet;
    private final Path ipamDataDir;

    NetworkConfig(String name, String bridge, String subnet, Path ipamDataDir) {
        this.name = name;
        this.bridge = bridge;
        this.subnet = subnet;
        this.ipamDataDir = ipamDataDir.toAbsolutePath().normalize();
    }

    /** Where host-local keeps this network's leases: one file per address, named by it. */
    Path leaseDir() {
        return ipamDataDir.resolve(name);
    }

    /** The bridge plugin's stdin; {@code prevResult} only for DEL and CHECK, with the cached ADD result. */
    byte[] bridge(Optional<JsonNode> prevResult) {
        ObjectNode range = F.objectNode().put("subnet", subnet);
        ObjectNode ipam = F.objectNode()
                .put("type", HOST_LOCAL)
                .put("dataDir", ipamDataDir.toString());
        ipam.putArray("ranges").addArray().add(range);
        // A default route through the bridge's address: with ipMasq, outbound reaches the host and beyond.
        ipam.putArray("routes").addObject().put("dst", "0.0.0.0/0");
        ObjectNode conf = header(BRIDGE)
                .put("bridge", bridge)
                .put("isGateway", true)
                .put("ipMasq", true);
        conf.set("ipam", ipam);
        prevResult.ifPresent(r -> conf.set("prevResult", r));
        return write(conf);
    }

    /** The firewall plugin's stdin; it needs the bridge's result on ADD and the cached result on DEL. */
    byte[] firewall(Optional<JsonNode> prevResult) {
        ObjectNode conf = header(FIREWALL).put("backend", "iptables");
        prevResult.ifPresent(r -> conf.set("prevResult", r));
        return write(conf);
    }

    /**
     * A minimal CNI result naming the addresses host-local leased to the container (address → holder),
     * or empty if it holds none: what a DEL carries as {@code prevResult} when the ADD's own result
     * was never recorded.
     */
    Optional<JsonNode> resultFromLeases(String containerId, Map<String, String> leases) {
        String prefix = subnet.substring(subnet.indexOf('/'));
        ObjectNode result = F.objectNode().put("cniVersion", CNI_VERSION);
        ArrayNode ips = result.putArray("ips");
        leases.forEach((address, holder) -> {
            if (holder.equals(containerId) && address.indexOf('.') > 0) {
                ips.addObject().put("address", address + prefix);
            }
        });
        return ips.isEmpty() ? Optional.empty() : Optional.of(result);
    }

    private ObjectNode header(String type) {
        return F.objectNode().put("cniVersion", CNI_VERSION).put("name", name).put("type", type);
    }

    static byte[] write(JsonNode node) {
        try {
            return MAPPER.writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
