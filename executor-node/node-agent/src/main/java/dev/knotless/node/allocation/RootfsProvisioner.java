package dev.knotless.node.allocation;

import dev.knotless.node.agent.AllocationRuntime.RuntimeFailure;
import dev.knotless.node.host.HostCommand;
import dev.knotless.node.image.Trees;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An allocation's own root filesystem ({@code ALLOCATION/rootfs}). Where the kernel allows it, an
 * overlay mount: lower = the unpacked image (read-only, shared by every allocation of that image),
 * upper and work = {@code ALLOCATION/overlay/{upper,work}}, the allocation's own; otherwise a copy
 * ({@code cp -a} keeps owners, modes, links and hard links). Which one is decided once, by mounting
 * a probe overlay in the state directory, and said once in the log.
 *
 * <p>{@link #release} unmounts before the allocation's directory is deleted, so a deletion never
 * walks into the mount; it is called for every deleted allocation, orphans after a crash included.
 */
final class RootfsProvisioner {

    private static final Logger LOG = LoggerFactory.getLogger(RootfsProvisioner.class);
    private static final Duration MOUNT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration COPY_TIMEOUT = Duration.ofMinutes(10);

    /** How allocations get their root filesystem on this node. */
    enum Mode { OVERLAY, COPY }

    private final Path stateDir;
    private @Nullable Mode mode;

    RootfsProvisioner(Path stateDir) {
        this.stateDir = stateDir;
    }

    /** With the mode fixed, not probed: for measuring one against the other. */
    RootfsProvisioner(Path stateDir, Mode mode) {
        this.stateDir = stateDir;
        this.mode = mode;
    }

    /** {@code ALLOCATION/rootfs} with the image's files, made once: a repeated call finds it ready. */
    void prepare(Path image, Path allocationDir) throws IOException, RuntimeFailure {
        Path target = allocationDir.resolve("rootfs");
        if (mode() == Mode.COPY) {
            copy(image, target);
            return;
        }
        // Mounted already (a repeated create), or a copy made before this node used overlays.
        if (isMountPoint(target) || Files.isDirectory(target) && !Files.isDirectory(allocationDir.resolve("overlay"))) {
            return;
        }
        Path upper = Files.createDirectories(allocationDir.resolve("overlay/upper"));
        Path work = Files.createDirectories(allocationDir.resolve("overlay/work"));
        Files.createDirectories(target);
        mountOverlay(image, upper, work, target);
    }

    /** Unmounts the allocation's overlay, if it has one; its directory (upper dir included) is deleted next. */
    void release(Path allocationDir) throws IOException, RuntimeFailure {
        Path target = allocationDir.resolve("rootfs");
        if (isMountPoint(target)) {
            HostCommand.Outcome out = host(List.of("umount", target.toString()));
            if (out.exitCode() != 0 && isMountPoint(target)) {
                throw new RuntimeFailure("unmounting " + target + " failed: " + OneLine.of(out.stderr(), 400));
            }
        }
    }

    synchronized Mode mode() throws IOException {
        if (mode == null) {
            String why = probe();
            mode = why == null ? Mode.OVERLAY : Mode.COPY;
            if (why == null) {
                LOG.info("allocation root filesystems: overlay mounts over the unpacked image (read-only, shared)");
            } else {
                LOG.info("allocation root filesystems: copies of the unpacked image (no overlay here: {})", why);
            }
        }
        return mode;
    }

    /** Null if an overlay mounts in the state directory, else why not. */
    private @Nullable String probe() throws IOException {
        Path dir = stateDir.resolve("overlay-probe");
        try {
            Trees.delete(dir);
            Path lower = Files.createDirectories(dir.resolve("lower"));
            Files.writeString(lower.resolve("file"), "lower", StandardCharsets.UTF_8);
            Path merged = Files.createDirectories(dir.resolve("merged"));
            try {
                mountOverlay(lower, Files.createDirectories(dir.resolve("upper")), Files.createDirectories(dir.resolve("work")), merged);
            } catch (RuntimeFailure e) {
                return e.getMessage();
            }
            try {
                Files.writeString(merged.resolve("file"), "upper", StandardCharsets.UTF_8);
                return Files.readString(lower.resolve("file"), StandardCharsets.UTF_8).equals("lower") ? null
                        : "a write through the overlay reached its lower directory";
            } finally {
                try {
                    host(List.of("umount", merged.toString()));
                } catch (RuntimeFailure e) {
                    LOG.warn("the overlay probe in {} could not be unmounted: {}", merged, e.getMessage());
                }
            }
        } finally {
            if (!isMountPoint(dir.resolve("merged"))) {
                Trees.delete(dir);
            }
        }
    }

    private static void mountOverlay(Path lower, Path upper, Path work, Path target) throws RuntimeFailure {
        String options = "lowerdir=" + escape(lower) + ",upperdir=" + escape(upper) + ",workdir=" + escape(work);
        HostCommand.Outcome out = host(List.of("mount", "-t", "overlay", "overlay", "-o", options, target.toString()));
        if (out.exitCode() != 0) {
            throw new RuntimeFailure("overlay mount on " + target + " failed: "
                    + OneLine.of(out.stderr().isBlank() ? out.stdout() : out.stderr(), 400));
        }
    }

    /** Overlay options are comma-separated and take {@code \} escapes. */
    private static String escape(Path p) {
        return p.toAbsolutePath().toString().replace("\\", "\\\\").replace(",", "\\,").replace(":", "\\:");
    }

    private static boolean isMountPoint(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        String wanted = dir.toRealPath().toString();
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"), StandardCharsets.UTF_8)) {
            String[] fields = line.split(" ");
            if (fields.length > 4 && unescape(fields[4]).equals(wanted)) {
                return true;
            }
        }
        return false;
    }

    /** mountinfo writes space, tab, newline and backslash as octal escapes. */
    private static String unescape(String field) {
        return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
    }

    private static HostCommand.Outcome host(List<String> argv) throws RuntimeFailure {
        return host(argv, MOUNT_TIMEOUT);
    }

    private static HostCommand.Outcome host(List<String> argv, Duration timeout) throws RuntimeFailure {
        try {
            return HostCommand.run(argv, null, new byte[0], timeout);
        } catch (HostCommand.NotStarted e) {
            throw new RuntimeFailure(argv.getFirst() + " could not be started: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeFailure(argv.getFirst() + " interrupted");
        }
    }

    private static void copy(Path image, Path target) throws IOException, RuntimeFailure {
        if (Files.isDirectory(target)) {
            return;
        }
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Trees.delete(tmp);
        HostCommand.Outcome out = host(List.of("cp", "-a", "--", image.toString(), tmp.toString()), COPY_TIMEOUT);
        if (out.exitCode() != 0) {
            Trees.delete(tmp);
            throw new RuntimeFailure("copying the image's root filesystem failed: " + OneLine.of(out.stderr() + out.stdout(), 400));
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    }
}
