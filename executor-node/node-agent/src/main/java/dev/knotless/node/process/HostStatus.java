package dev.knotless.node.process;

import dev.knotless.node.protocol.NodeStatus;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the node tells the runner of itself ({@link NodeStatus}): CPU and memory (the operator's
 * declaration, else the machine's), the free space of the state directory, runc's version and the
 * CNI plugins present. runc and the plugins are looked at once, when the agent starts: they change
 * only with a package upgrade, which restarts the agent anyway.
 */
public final class HostStatus {

    private static final Logger LOG = LoggerFactory.getLogger(HostStatus.class);
    /** A change of free disk the runner hears of: this much, or a tenth of what it last heard, whichever is more. */
    static final long DISK_STEP = 1L << 30;
    /** This agent's version, from its jar's manifest; {@code dev} when run from classes (a build's tests). */
    static final String AGENT_VERSION = Optional.ofNullable(HostStatus.class.getPackage().getImplementationVersion())
            .filter(v -> v.matches("[ -~]{1,100}")).orElse("dev");

    private final Path stateDir;
    private final AgentProcess.DeclaredCapacity declared;
    private final String runc;
    private final List<String> plugins;

    public HostStatus(Path stateDir, AgentProcess.DeclaredCapacity declared, String runcBinary, Optional<Path> cniPlugins) {
        this.stateDir = stateDir;
        this.declared = declared;
        this.runc = runcVersion(runcBinary);
        this.plugins = cniPlugins.map(HostStatus::plugins).orElse(List.of());
        long machineMemory = machineMemory();
        declared.memoryBytes().ifPresent(m -> {
            if (m > machineMemory) {
                LOG.warn("declared memory capacity is more than this machine has declared={} machine={}", m, machineMemory);
            }
        });
    }

    public NodeStatus measure() {
        long cpu = declared.milliCpu().orElse(Runtime.getRuntime().availableProcessors() * 1000L);
        long memory = declared.memoryBytes().orElseGet(HostStatus::machineMemory);
        long free;
        try {
            free = Files.getFileStore(stateDir).getUsableSpace();
        } catch (IOException e) {
            free = 0;
        }
        return new NodeStatus(new NodeStatus.Capacity(cpu, memory, free), new NodeStatus.Health(AGENT_VERSION, runc, plugins));
    }

    /** Whether the runner should hear of {@code now} after {@code before}: capacity or health changed, or disk by a step. */
    public static boolean material(NodeStatus before, NodeStatus now) {
        NodeStatus.Capacity b = before.capacity();
        NodeStatus.Capacity n = now.capacity();
        long step = Math.max(DISK_STEP, b.freeDiskBytes() / 10);
        return b.milliCpu() != n.milliCpu() || b.memoryBytes() != n.memoryBytes() || !before.health().equals(now.health())
                || Math.abs(b.freeDiskBytes() - n.freeDiskBytes()) >= step;
    }

    private static long machineMemory() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
    }

    /** {@code runc --version}'s version, e.g. {@code 1.1.12}; {@code none} when it does not run. */
    static String runcVersion(String binary) {
        try {
            Process p = new ProcessBuilder(binary, "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readNBytes(4096), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "none";
            }
            return parseRuncVersion(out).orElse("none");
        } catch (IOException e) {
            return "none";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "none";
        }
    }

    static Optional<String> parseRuncVersion(String output) {
        return output.lines().filter(l -> l.startsWith("runc version ")).findFirst()
                .map(l -> l.substring("runc version ".length()).strip())
                .filter(v -> v.matches("[A-Za-z0-9.+~_-]{1,100}"));
    }

    /** The executable plugin files in the CNI plugin directory, by name. */
    static List<String> plugins(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile).filter(Files::isExecutable).map(f -> f.getFileName().toString())
                    .filter(n -> n.matches("[A-Za-z0-9._-]{1,64}")).sorted().limit(NodeStatus.Health.MAX_PLUGINS).toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
