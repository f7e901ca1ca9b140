package dev.knotless.executor.docker;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.executor.Hardening;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Trust;
import java.util.Map;

/**
 * The {@code POST /containers/create} body for a run: a PID 1 that only waits, hardened host
 * settings, the run's labels.
 *
 * <p>PID 1 exits on TERM (so {@code docker stop} is quick) and survives {@code kill -TERM -1}
 * from an exec, which is how a stopped step's processes are ended without ending the run.
 * It is set as the entrypoint so that an image's own ENTRYPOINT cannot wrap it.
 *
 * <p>Hardening is the run's {@link Hardening} record: {@code no-new-privileges} in
 * {@code SecurityOpt}; {@code CapDrop ALL}, then its capabilities in {@code CapAdd}; its PID limit
 * in {@code PidsLimit}; its read-only paths in {@code ReadonlyPaths} (which replaces the engine's
 * own list, the same five {@code /proc} paths by default); its user, unless the image's, in
 * {@code User}. Never privileged, no host mounts; untrusted runs get no network at all.
 */
final class ContainerConfig {

    static final String PID1 = "trap \"exit 0\" TERM INT; while :; do sleep 3600 & wait $!; done";
    private static final int MAX_NAME = 128;

    private ContainerConfig() {}

    static ObjectNode of(RunSpec spec, ObjectMapper json) {
        ObjectNode config = json.createObjectNode();
        config.put("Image", spec.image());
        ArrayNode entrypoint = config.putArray("Entrypoint");
        entrypoint.add("/bin/sh").add("-c").add(PID1);
        config.putArray("Cmd");
        config.put("WorkingDir", RunLayout.WORK);
        config.put("Tty", false);
        config.put("OpenStdin", false);
        config.put("AttachStdin", false);
        config.put("AttachStdout", false);
        config.put("AttachStderr", false);
        if (spec.hardening().user() instanceof Hardening.User.Ids ids) {
            config.put("User", ids.uid() + ":" + ids.gid());
        }
        ObjectNode labels = config.putObject("Labels");
        for (Map.Entry<String, String> label : spec.allLabels().entrySet()) {
            labels.put(label.getKey(), label.getValue());
        }

        ObjectNode host = config.putObject("HostConfig");
        Hardening hardening = spec.hardening();
        harden(host, hardening);
        host.put("NetworkMode", spec.trust() == Trust.UNTRUSTED ? "none" : "default");
        if (!spec.services().isEmpty()) {
            // services share this container's network namespace (ServiceContainers): their names are loopback
            ArrayNode hosts = host.putArray("ExtraHosts");
            spec.services().forEach(s -> hosts.add(s.name() + ":127.0.0.1"));
        }
        if (spec.resources().milliCpu() > 0) {
            host.put("NanoCpus", spec.resources().milliCpu() * 1_000_000L);
        }
        if (spec.resources().memoryBytes() > 0) {
            host.put("Memory", spec.resources().memoryBytes());
            host.put("MemorySwap", spec.resources().memoryBytes()); // no swap on top: the limit is the run's memory
        }
        return config;
    }

    /** {@code knotless-<runId>}, with characters Docker refuses in names replaced by {@code -}. */
    static String containerName(String runId) {
        StringBuilder name = new StringBuilder("knotless-");
        for (int i = 0; i < runId.length() && name.length() < MAX_NAME; i++) {
            char c = runId.charAt(i);
            boolean ok = c < 0x80 && (Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '-');
            name.append(ok ? c : '-');
        }
        return name.toString();
    }

    /** The run's hardening in a container's {@code HostConfig}: the run container's and its services' alike. */
    static void harden(ObjectNode host, Hardening hardening) {
        ArrayNode securityOpt = host.putArray("SecurityOpt");
        if (hardening.noNewPrivileges()) {
            securityOpt.add("no-new-privileges");
        }
        host.putArray("CapDrop").add("ALL");
        ArrayNode capAdd = host.putArray("CapAdd");
        hardening.capabilities().forEach(capAdd::add);
        ArrayNode readOnly = host.putArray("ReadonlyPaths");
        hardening.readOnlyPaths().forEach(readOnly::add);
        host.put("Privileged", false);
        host.put("PidsLimit", hardening.pidsLimit());
    }
}
