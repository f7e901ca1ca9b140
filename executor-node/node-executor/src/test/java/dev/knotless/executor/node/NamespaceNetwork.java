package dev.knotless.executor.node;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Network namespaces of their own for node agents, as separate machines on one LAN: a host bridge
 * on a free {@code 10.x.y.0/24} with {@code .1}, and per namespace a veth pair (the host end on the
 * bridge, {@code eth0} in the namespace with {@code .2}, {@code .3}, …), loopback up and a default
 * route via the bridge. What runs in a namespace reaches the host only at the bridge address; its
 * loopback is its own. Everything is named with the caller's random tag, and {@link #close} removes
 * it all, killing first what still runs in the namespaces.
 *
 * <p>Processes enter a namespace with {@code nsenter --net}, which changes the network namespace
 * only: {@code ip netns exec} would also remount {@code /sys}, hiding {@code /sys/fs/cgroup} from
 * runc.
 */
final class NamespaceNetwork implements AutoCloseable {

    private final String bridge;
    private final String prefix;
    private final List<String> namespaces;
    private final List<String> hostEnds;

    private NamespaceNetwork(String bridge, String prefix, List<String> namespaces, List<String> hostEnds) {
        this.bridge = bridge;
        this.prefix = prefix;
        this.namespaces = namespaces;
        this.hostEnds = hostEnds;
    }

    /** {@code count} namespaces ({@code knotless-TAG-0}, …) on a bridge {@code knb-TAG}; TAG at most 8 characters. */
    static NamespaceNetwork create(String tag, int count) throws IOException, InterruptedException {
        String subnet = NodeFixture.freeSubnet();
        String prefix = subnet.substring(0, subnet.lastIndexOf('.') + 1);
        NamespaceNetwork net = new NamespaceNetwork("knb-" + tag, prefix, new ArrayList<>(), new ArrayList<>());
        try {
            run("ip", "link", "add", net.bridge, "type", "bridge");
            run("ip", "addr", "add", net.hostAddress() + "/24", "dev", net.bridge);
            run("ip", "link", "set", net.bridge, "up");
            for (int i = 0; i < count; i++) {
                String ns = "knotless-" + tag + "-" + i;
                run("ip", "netns", "add", ns);
                net.namespaces.add(ns);
                String hostEnd = "knv-" + tag + "-" + i;
                run("ip", "link", "add", hostEnd, "type", "veth", "peer", "name", "knp-" + tag + "-" + i, "netns", ns);
                net.hostEnds.add(hostEnd);
                run("ip", "link", "set", hostEnd, "master", net.bridge);
                run("ip", "link", "set", hostEnd, "up");
                run("ip", "-n", ns, "link", "set", "knp-" + tag + "-" + i, "name", "eth0");
                run("ip", "-n", ns, "addr", "add", net.address(i) + "/24", "dev", "eth0");
                run("ip", "-n", ns, "link", "set", "eth0", "up");
                run("ip", "-n", ns, "link", "set", "lo", "up");
                run("ip", "-n", ns, "route", "add", "default", "via", net.hostAddress());
            }
            return net;
        } catch (IOException | RuntimeException e) {
            net.close();
            throw e;
        }
    }

    /** The bridge's address: where the namespaces reach the host (the runner, the registry). */
    String hostAddress() {
        return prefix + "1";
    }

    InetAddress hostInetAddress() throws IOException {
        return InetAddress.getByName(hostAddress());
    }

    /** Namespace {@code i}'s address on the bridge. */
    String address(int i) {
        return prefix + (i + 2);
    }

    String namespace(int i) {
        return namespaces.get(i);
    }

    /** The argv prefix that runs a command in namespace {@code i}. */
    List<String> enter(int i) {
        return List.of("nsenter", "--net=/run/netns/" + namespace(i), "--");
    }

    /** The inode of namespace {@code i}, as {@code /proc/PID/ns/net} of a process in it names it ({@code net:[INODE]}). */
    long inode(int i) throws IOException {
        return (long) Files.getAttribute(Path.of("/run/netns", namespace(i)), "unix:ino");
    }

    /** The inode of the network namespace process {@code pid} is in. */
    static long inodeOf(long pid) throws IOException {
        String link = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "net")).toString();
        return Long.parseLong(link.substring(link.indexOf('[') + 1, link.indexOf(']')));
    }

    /** What still runs in namespace {@code i} ({@code ip netns pids}). */
    List<Long> pids(int i) throws IOException, InterruptedException {
        return output("ip", "netns", "pids", namespace(i)).lines().filter(l -> l.matches("\\d+")).map(Long::parseLong).toList();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        for (int i = 0; i < namespaces.size(); i++) {
            // Only what this test started runs in a namespace it made: its agents, step shims, CNI plugins.
            for (long pid : pids(i)) {
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
            }
            quietly("ip", "netns", "del", namespace(i));
        }
        for (String end : hostEnds) {
            quietly("ip", "link", "del", end);
        }
        quietly("ip", "link", "del", bridge);
    }

    private static void run(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", argv) + " failed: " + out.strip());
        }
    }

    private static String output(String... argv) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }

    /** For cleanup: a host end already went with its namespace, so a failure here is no error. */
    private static void quietly(String... argv) throws IOException, InterruptedException {
        new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
                .waitFor(30, TimeUnit.SECONDS);
    }
}
