package dev.knotless.node.cni;

import dev.knotless.node.host.HostCommand;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Holds a container's network namespace open from attach to detach: a bind mount of the namespace
 * on {@code <dir>/<container id>}. The bridge plugin's DEL needs the namespace to find the
 * container's addresses and remove its masquerade chain; without one it only releases the lease
 * and leaves the chain behind. A pinned namespace outlives its container's processes, so DEL always
 * has one. Mounting uses util-linux {@code mount} and {@code umount}.
 */
record NetnsPins(Path dir, Duration timeout) {

    private static final Path HOST_NETNS = Path.of("/proc/self/ns/net");

    Path path(String containerId) {
        return dir.resolve(containerId);
    }

    /** The pin file exists (mounted or left unmounted by a crash). */
    boolean exists(String containerId) {
        return Files.exists(path(containerId), LinkOption.NOFOLLOW_LINKS);
    }

    /** Something is mounted on the pin: its device differs from its directory's. */
    boolean mounted(String containerId) throws NetworkException {
        Path pin = path(containerId);
        if (!Files.exists(pin, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        return !Objects.equals(identity(pin).dev(), identity(dir).dev());
    }

    /** The pinned namespace is the one at {@code netns} (same device and inode of nsfs). */
    boolean holds(String containerId, Path netns) throws NetworkException {
        return mounted(containerId) && Files.exists(netns) && identity(path(containerId)).equals(identity(netns));
    }

    /**
     * Refuses what must never reach a plugin: a path that is not a network namespace, or the node's
     * own (the bridge plugin would add, or on DEL delete, the node's {@code eth0}).
     */
    static void requireContainerNamespace(Path netns) throws NetworkException {
        if (!Files.exists(netns)) {
            throw new NetworkException("no network namespace at " + netns + " (has the container's process exited?)");
        }
        if (!isNetworkNamespace(netns)) {
            throw new NetworkException(netns + " is not a network namespace (expected /proc/<pid>/ns/net or a bind mount of one)");
        }
        if (identity(netns).equals(identity(HOST_NETNS))) {
            throw new NetworkException(netns + " is the node's own network namespace, not a container's; refused");
        }
    }

    /** Bind-mounts {@code netns} on the container's pin and returns the pin's path. */
    Path pin(String containerId, Path netns) throws NetworkException {
        requireContainerNamespace(netns);
        Path pin = path(containerId);
        try {
            Files.createDirectories(dir);
            if (!Files.exists(pin, LinkOption.NOFOLLOW_LINKS)) {
                Files.createFile(pin);
            }
        } catch (IOException e) {
            throw new NetworkException("cannot create " + pin + ": " + e.getMessage());
        }
        if (!mounted(containerId)) {
            host(List.of("mount", "--bind", netns.toString(), pin.toString()), "pin the network namespace " + netns);
        }
        return pin;
    }

    /** Unmounts and removes the pin; a missing one is fine. */
    void unpin(String containerId) throws NetworkException {
        Path pin = path(containerId);
        // A namespace pinned twice (by hand, or a race with another tool) has two mounts to undo.
        for (int i = 0; i < 4 && mounted(containerId); i++) {
            host(List.of("umount", pin.toString()), "unpin the network namespace of " + containerId);
        }
        if (mounted(containerId)) {
            throw new NetworkException("cannot unpin the network namespace of " + containerId + ": " + pin + " is still mounted");
        }
        try {
            Files.deleteIfExists(pin);
        } catch (IOException e) {
            throw new NetworkException("cannot remove " + pin + ": " + e.getMessage());
        }
    }

    /** Container ids with a pin file. */
    Set<String> ids() throws NetworkException {
        Set<String> ids = new TreeSet<>();
        if (!Files.isDirectory(dir)) {
            return ids;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (ContainerIds.valid(name)) {
                    ids.add(name);
                }
            }
        } catch (IOException e) {
            throw new NetworkException("cannot list " + dir + ": " + e.getMessage());
        }
        return ids;
    }

    /**
     * {@code /proc/<pid>/ns/net} reads as the link {@code net:[inode]}; a bind mount of one (a pin,
     * {@code /run/netns/NAME}) lives on nsfs, the device every namespace file shares.
     */
    private static boolean isNetworkNamespace(Path netns) throws NetworkException {
        if (Files.isSymbolicLink(netns)) {
            try {
                String target = Files.readSymbolicLink(netns).toString();
                if (target.startsWith("net:[")) {
                    return true;
                }
                if (target.matches("[a-z_]+:\\[\\d+]")) {
                    return false; // another kind of namespace
                }
            } catch (IOException e) {
                throw new NetworkException("cannot read " + netns + ": " + e.getMessage());
            }
        }
        return Objects.equals(identity(netns).dev(), identity(HOST_NETNS).dev());
    }

    private record Identity(Object dev, Object ino) {}

    private static Identity identity(Path p) throws NetworkException {
        try {
            return new Identity(Files.getAttribute(p, "unix:dev"), Files.getAttribute(p, "unix:ino"));
        } catch (IOException | UnsupportedOperationException e) {
            throw new NetworkException("cannot stat " + p + ": " + e.getMessage());
        }
    }

    private void host(List<String> argv, String what) throws NetworkException {
        HostCommand.Outcome outcome;
        try {
            outcome = HostCommand.run(argv, null, new byte[0], timeout);
        } catch (HostCommand.NotStarted e) {
            throw new NetworkException("cannot " + what + ": " + argv.getFirst() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NetworkException("cannot " + what + ": interrupted");
        }
        if (outcome.timedOut()) {
            throw new NetworkException("cannot " + what + ": " + argv.getFirst() + " did not finish in time; killed");
        }
        if (outcome.exitCode() != 0) {
            throw new NetworkException("cannot " + what + ": " + OneLine.of(outcome.stderr() + " " + outcome.stdout(), 400));
        }
    }
}
