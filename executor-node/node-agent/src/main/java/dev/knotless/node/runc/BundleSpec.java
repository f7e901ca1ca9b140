package dev.knotless.node.runc;

import dev.knotless.node.protocol.ProcessHardening;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Everything an allocation's {@code config.json} is made of. Two equal specs give byte-identical
 * files ({@link OciConfig}).
 *
 * @param id          the runc container id (also the hostname and the cgroup's leaf name)
 * @param rootfs      the unpacked image (absolute)
 * @param dirs        the allocation's host directories bound to {@code /work}, {@code /steps}, {@code /outputs}
 * @param resources   limits from the run
 * @param user        the user PID 1 and steps run as, unless {@link NodeOptions#runAs()} overrides it
 * @param env         the image's environment ({@code PATH} is added if missing)
 * @param netns       a network namespace to join (CNI's); empty: a fresh one with only loopback
 * @param annotations labels of the container (the config digest is added by {@link OciConfig})
 * @param node        the node's hardening options
 * @param hardening   what the runner asked: capabilities, no-new-privileges, PID limit, read-only paths
 * @param service     set for a service's container: what its PID 1 runs, where; it then has no run
 *                    layout ({@code /work}, {@code /steps}, {@code /outputs}), only the allocation's hosts file
 */
public record BundleSpec(String id, Path rootfs, AllocationDirs dirs, Resources resources, RunAs user,
        List<String> env, Optional<Path> netns, Map<String, String> annotations, NodeOptions node,
        ProcessHardening hardening, Optional<ServiceProcess> service) {

    /** A service container's PID 1: its image's entrypoint and command (or the service's), in its image's directory. */
    public record ServiceProcess(List<String> args, String cwd) {
        public ServiceProcess {
            args = List.copyOf(args);
            if (args.isEmpty()) {
                throw new IllegalArgumentException("a service needs a command: its image has none and none was given");
            }
            cwd = cwd == null || cwd.isEmpty() ? "/" : cwd;
        }
    }

    /** An allocation's own container. */
    public BundleSpec(String id, Path rootfs, AllocationDirs dirs, Resources resources, RunAs user,
            List<String> env, Optional<Path> netns, Map<String, String> annotations, NodeOptions node,
            ProcessHardening hardening) {
        this(id, rootfs, dirs, resources, user, env, netns, annotations, node, hardening, Optional.empty());
    }

    /** With the default hardening. */
    public BundleSpec(String id, Path rootfs, AllocationDirs dirs, Resources resources, RunAs user,
            List<String> env, Optional<Path> netns, Map<String, String> annotations, NodeOptions node) {
        this(id, rootfs, dirs, resources, user, env, netns, annotations, node, ProcessHardening.DEFAULT);
    }

    public BundleSpec {
        if (id == null || !id.matches("[a-z0-9][a-z0-9_.-]{0,62}")) {
            throw new IllegalArgumentException("container id must be 1-63 of [a-z0-9_.-], got '" + id + "'");
        }
        requireAbsolute(rootfs, "rootfs");
        Objects.requireNonNull(dirs, "dirs");
        Objects.requireNonNull(resources, "resources");
        Objects.requireNonNull(user, "user");
        env = List.copyOf(env);
        Objects.requireNonNull(netns, "netns").ifPresent(p -> requireAbsolute(p, "netns"));
        annotations = Map.copyOf(new TreeMap<>(annotations));
        annotations.keySet().forEach(k -> {
            if (k.equals(OciConfig.DIGEST_ANNOTATION)) {
                throw new IllegalArgumentException(k + " is set by the generator");
            }
        });
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(hardening, "hardening");
        Objects.requireNonNull(service, "service");
    }

    static Path requireAbsolute(Path path, String what) {
        if (path == null || !path.isAbsolute()) {
            throw new IllegalArgumentException(what + " must be an absolute path, got " + path);
        }
        return path.normalize();
    }

    /** Host directories of one allocation, under the node's state directory. */
    public record AllocationDirs(Path work, Path steps, Path outputs, Path hosts) {
        public AllocationDirs {
            work = requireAbsolute(work, "work");
            steps = requireAbsolute(steps, "steps");
            outputs = requireAbsolute(outputs, "outputs");
            hosts = requireAbsolute(hosts, "hosts");
        }

        /** {@code base/work}, {@code base/steps}, {@code base/outputs}, and the container's {@code /etc/hosts} as {@code base/hosts}. */
        public static AllocationDirs under(Path base) {
            return new AllocationDirs(base.resolve("work"), base.resolve("steps"), base.resolve("outputs"), base.resolve("hosts"));
        }
    }

    /**
     * @param memoryBytes   hard memory limit (swap is not allowed on top of it)
     * @param cpuMillicores CPU time per wall second, in thousandths of a CPU (1000 = one CPU)
     */
    public record Resources(long memoryBytes, long cpuMillicores) {
        public Resources {
            if (memoryBytes < 4L * 1024 * 1024) {
                throw new IllegalArgumentException("memory limit must be at least 4 MiB, got " + memoryBytes + " bytes");
            }
            if (cpuMillicores < 10 || cpuMillicores > 1_024_000) {
                throw new IllegalArgumentException("cpu must be 10..1024000 millicores, got " + cpuMillicores);
            }
        }
    }
}
