package dev.knotless.node.runc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Generates an allocation's OCI runtime {@code config.json} and the process JSON of {@code runc exec}.
 * Output is deterministic: keys sorted at every level, two-space indent, {@code \n} line ends and a
 * final newline, so the same {@link BundleSpec} always gives the same bytes. The file carries the
 * SHA-256 of its own content (computed without that annotation) as {@value #DIGEST_ANNOTATION}; an
 * existing container is accepted by {@code create} only if that digest matches.
 */
public final class OciConfig {

    public static final String DIGEST_ANNOTATION = "dev.knotless.config-digest";
    public static final long CPU_PERIOD_MICROS = 100_000;
    public static final String CGROUP_PARENT = "/knotless";
    static final String DEFAULT_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    static final String SECCOMP_RESOURCE = "seccomp-default.json";

    /**
     * PID 1 of an allocation: idle until TERM, then exit 0. Steps run beside it with {@code runc exec};
     * {@code sleep & wait} keeps the shell able to take the signal at once, which a foreground sleep would not.
     */
    public static final List<String> IDLE_INIT =
            List.of("/bin/sh", "-c", "trap 'exit 0' TERM; while :; do sleep 3600 & wait $!; done");

    private static final JsonNodeFactory F = JsonNodeFactory.instance;
    // Every object's keys in sorted order (arrays keep theirs: order is meaning), so equal specs are equal bytes.
    private final ObjectMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT)
            .enable(JsonNodeFeature.WRITE_PROPERTIES_SORTED).build();
    private final ObjectNode seccomp;

    public OciConfig() {
        try (InputStream in = OciConfig.class.getResourceAsStream(SECCOMP_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + SECCOMP_RESOURCE + " is missing");
            }
            seccomp = (ObjectNode) mapper.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The {@code config.json} bytes for {@code spec}, digest annotation included. */
    public byte[] configJson(BundleSpec spec) {
        ObjectNode config = config(spec);
        byte[] withoutDigest = write(config);
        ((ObjectNode) config.get("annotations")).put(DIGEST_ANNOTATION, sha256(withoutDigest));
        return write(config);
    }

    /** The digest annotation a {@link #configJson} output carries, or empty if it has none. */
    public String digestOf(byte[] configJson) {
        try {
            JsonNode node = mapper.readTree(configJson).path("annotations").path(DIGEST_ANNOTATION);
            return node.isTextual() ? node.textValue() : "";
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * The process JSON for {@code runc exec}: the same user, hardening and confinement as PID 1 (runc
     * would inherit most of it; being explicit keeps a step from ever running with more).
     */
    public byte[] execProcessJson(BundleSpec spec, List<String> args, List<String> env, String cwd) {
        if (args.isEmpty()) {
            throw new IllegalArgumentException("a process needs at least one argument");
        }
        return write(process(spec, args, env, cwd));
    }

    ObjectNode config(BundleSpec spec) {
        ObjectNode c = F.objectNode();
        c.put("ociVersion", "1.0.2");
        c.set("process", spec.service().isPresent()
                ? process(spec, spec.service().get().args(), spec.env(), spec.service().get().cwd())
                : process(spec, IDLE_INIT, spec.env(), "/"));
        ObjectNode root = c.putObject("root");
        root.put("path", spec.rootfs().toString());
        root.put("readonly", spec.node().readOnlyRoot());
        c.put("hostname", spec.id());
        c.set("mounts", mounts(spec));
        c.set("linux", linux(spec));
        ObjectNode annotations = c.putObject("annotations");
        spec.annotations().forEach(annotations::put);
        return c;
    }

    private ObjectNode process(BundleSpec spec, List<String> args, List<String> env, String cwd) {
        RunAs user = spec.node().runAs().orElse(spec.user());
        ObjectNode p = F.objectNode();
        p.put("terminal", false);
        ObjectNode u = p.putObject("user");
        u.put("uid", user.uid());
        u.put("gid", user.gid());
        // The primary group as a supplementary one too, as Docker and containerd give it: `id` then
        // shows groups=GID, and a program checking getgroups() sees the same on every executor.
        u.putArray("additionalGids").add(user.gid());
        p.set("args", strings(args));
        p.set("env", strings(withHostname(withPath(env), spec.id())));
        p.put("cwd", cwd);
        ObjectNode caps = p.putObject("capabilities");
        List<String> granted = spec.hardening().capabilities().stream().map(c -> "CAP_" + c).sorted().toList();
        for (String set : List.of("bounding", "effective", "permitted")) {
            caps.set(set, strings(granted));
        }
        // Not inherited across exec and not ambient: a step's programs get them as root does, no further.
        caps.putArray("inheritable");
        caps.putArray("ambient");
        // No rlimits: processes inherit the agent's (its service manager sets them). A value above the
        // agent's hard limit would fail every create where the agent lacks CAP_SYS_RESOURCE.
        p.put("noNewPrivileges", spec.hardening().noNewPrivileges());
        spec.node().apparmor().ifPresent(profile -> p.put("apparmorProfile", profile));
        return p;
    }

    private static List<String> withPath(List<String> env) {
        if (env.stream().anyMatch(e -> e.startsWith("PATH="))) {
            return env;
        }
        List<String> all = new ArrayList<>(env);
        all.add(DEFAULT_PATH);
        return all;
    }

    /** {@code HOSTNAME}, as Docker and the kubelet set it, unless the run sets its own. */
    private static List<String> withHostname(List<String> env, String hostname) {
        if (env.stream().anyMatch(e -> e.startsWith("HOSTNAME="))) {
            return env;
        }
        List<String> all = new ArrayList<>(env);
        all.add("HOSTNAME=" + hostname);
        return all;
    }

    private static ArrayNode mounts(BundleSpec spec) {
        ArrayNode m = F.arrayNode();
        mount(m, "/proc", "proc", "proc", List.of("nosuid", "noexec", "nodev"));
        mount(m, "/dev", "tmpfs", "tmpfs", List.of("nosuid", "strictatime", "mode=755", "size=65536k"));
        List<String> devpts = new ArrayList<>(List.of("nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"));
        if (spec.node().userNamespace().isEmpty()) {
            devpts.add("gid=5"); // tty group; inside a user namespace it exists only if mapped, so leave it out there
        }
        mount(m, "/dev/pts", "devpts", "devpts", devpts);
        mount(m, "/dev/shm", "tmpfs", "shm", List.of("nosuid", "noexec", "nodev", "mode=1777", "size=65536k"));
        mount(m, "/dev/mqueue", "mqueue", "mqueue", List.of("nosuid", "noexec", "nodev"));
        mount(m, "/sys", "sysfs", "sysfs", List.of("nosuid", "noexec", "nodev", "ro"));
        mount(m, "/sys/fs/cgroup", "cgroup", "cgroup", List.of("nosuid", "noexec", "nodev", "relatime", "ro"));
        if (spec.node().readOnlyRoot()) {
            mount(m, "/tmp", "tmpfs", "tmpfs", List.of("nosuid", "nodev", "mode=1777", "size=262144k"));
        }
        if (spec.service().isPresent()) {
            // a service sees the allocation's host names, not its files
            mount(m, "/etc/hosts", "bind", spec.dirs().hosts().toString(), List.of("rbind", "nosuid", "nodev", "ro"));
            return m;
        }
        mount(m, "/work", "bind", spec.dirs().work().toString(), List.of("rbind", "nosuid", "nodev", "rw"));
        mount(m, "/steps", "bind", spec.dirs().steps().toString(), List.of("rbind", "nosuid", "nodev", "ro"));
        mount(m, "/outputs", "bind", spec.dirs().outputs().toString(), List.of("rbind", "nosuid", "nodev", "rw"));
        // the allocation's own, as Docker and the kubelet give one: localhost, and the host name
        // resolving (InetAddress.getLocalHost() fails where it does not); writable, as theirs are
        mount(m, "/etc/hosts", "bind", spec.dirs().hosts().toString(), List.of("rbind", "nosuid", "nodev", "rw"));
        return m;
    }

    private static void mount(ArrayNode m, String destination, String type, String source, List<String> options) {
        ObjectNode n = m.addObject();
        n.put("destination", destination);
        n.put("type", type);
        n.put("source", source);
        n.set("options", strings(options));
    }

    private ObjectNode linux(BundleSpec spec) {
        ObjectNode l = F.objectNode();
        spec.node().userNamespace().ifPresent(ns -> {
            l.putArray("uidMappings").addObject().put("containerID", 0).put("hostID", ns.hostUid()).put("size", ns.size());
            l.putArray("gidMappings").addObject().put("containerID", 0).put("hostID", ns.hostGid()).put("size", ns.size());
        });
        ArrayNode devices = l.putArray("devices");
        device(devices, "/dev/null", 1, 3);
        device(devices, "/dev/zero", 1, 5);
        device(devices, "/dev/full", 1, 7);
        device(devices, "/dev/random", 1, 8);
        device(devices, "/dev/urandom", 1, 9);
        device(devices, "/dev/tty", 5, 0);
        l.put("cgroupsPath", CGROUP_PARENT + "/" + spec.id());
        l.set("resources", resources(spec.resources(), spec.hardening().pidsLimit()));
        ArrayNode ns = l.putArray("namespaces");
        for (String type : List.of("pid", "ipc", "uts", "mount", "cgroup")) {
            ns.addObject().put("type", type);
        }
        ObjectNode net = ns.addObject().put("type", "network");
        spec.netns().ifPresent(p -> net.put("path", p.toString()));
        if (spec.node().userNamespace().isPresent()) {
            ns.addObject().put("type", "user");
        }
        l.set("maskedPaths", strings(List.of("/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys",
                "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
                "/sys/firmware", "/sys/devices/virtual/powercap")));
        l.set("readonlyPaths", strings(spec.hardening().readOnlyPaths()));
        l.set("seccomp", seccomp.deepCopy());
        return l;
    }

    private static void device(ArrayNode devices, String path, int major, int minor) {
        devices.addObject().put("path", path).put("type", "c").put("major", major).put("minor", minor)
                .put("fileMode", 0666).put("uid", 0).put("gid", 0);
    }

    private static ObjectNode resources(BundleSpec.Resources r, long pidsLimit) {
        ObjectNode res = F.objectNode();
        ArrayNode devices = res.putArray("devices");
        devices.addObject().put("allow", false).put("access", "rwm");
        for (int[] d : new int[][] {{1, 3}, {1, 5}, {1, 7}, {1, 8}, {1, 9}, {5, 0}, {5, 2}, {136, -1}}) {
            ObjectNode allow = devices.addObject().put("allow", true).put("type", "c").put("major", d[0]);
            if (d[1] >= 0) {
                allow.put("minor", d[1]);
            }
            allow.put("access", "rwm");
        }
        res.putObject("memory").put("limit", r.memoryBytes()).put("swap", r.memoryBytes());
        res.putObject("cpu")
                .put("shares", Math.max(2, r.cpuMillicores() * 1024 / 1000))
                .put("quota", r.cpuMillicores() * CPU_PERIOD_MICROS / 1000)
                .put("period", CPU_PERIOD_MICROS);
        res.putObject("pids").put("limit", pidsLimit);
        return res;
    }

    private static ArrayNode strings(List<String> values) {
        ArrayNode a = F.arrayNode();
        values.forEach(a::add);
        return a;
    }

    private byte[] write(JsonNode node) {
        try {
            String json = mapper.writer().withDefaultPrettyPrinter().writeValueAsString(node);
            return (json.replace("\r\n", "\n") + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
