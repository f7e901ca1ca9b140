package dev.knotless.node.cni;

import dev.knotless.testkit.Commands;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.knotless.node.cni.CniNetwork.Attachment;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's real CNI plugins (bridge, host-local, firewall) as root, on a bridge and a /24 of this
 * test's own, with namespaces made by {@code unshare --net}: reachability between attached
 * namespaces and its absence from an unattached one, idempotent attach, leases and rules released by
 * detach with the namespace's process gone, holders, and one-line failures.
 */
class CniNetworkIT {

    static final Path PLUGINS = Path.of("/usr/lib/cni");
    static final Duration TIMEOUT = Duration.ofSeconds(20);
    static final List<Long> ATTACH_NANOS = Collections.synchronizedList(new ArrayList<>());
    static final List<Long> DETACH_NANOS = Collections.synchronizedList(new ArrayList<>());
    static final List<Long> CYCLE_ATTACH_NANOS = new ArrayList<>();
    static final List<Long> CYCLE_DETACH_NANOS = new ArrayList<>();

    static String bridge;
    static String networkName;
    static String subnet;
    static String prefix; // "10.X.Y." of the subnet

    @TempDir
    Path state;

    CniNetwork net;
    final List<Process> processes = new ArrayList<>();

    @BeforeAll
    static void pickNetwork() throws Exception {
        assumeTrue(System.getProperty("user.name").equals("root"), "CNI plugins need root; these tests run as root only");
        for (String plugin : List.of("bridge", "host-local", "firewall")) {
            assumeTrue(Files.isExecutable(PLUGINS.resolve(plugin)),
                    "no CNI plugin " + PLUGINS.resolve(plugin) + " (apt-get install -y containernetworking-plugins)");
        }
        for (String tool : List.of("unshare", "nsenter", "busybox", "iptables-save", "mount")) {
            assumeTrue(Commands.runs("sh", "-c", "command -v " + tool), "the " + tool + " command is not installed");
        }
        String hex = HexFormat.of().formatHex(SecureRandom.getInstanceStrong().generateSeed(3));
        bridge = "kn" + hex;
        networkName = "knit-" + hex;
        String routes = Commands.output("ip", "-4", "route", "show", "table", "all") + Commands.output("ip", "-4", "-o", "addr");
        for (int attempt = 0; subnet == null; attempt++) {
            if (attempt == 200) {
                throw new IllegalStateException("no free /24 in 10.213-10.250 next to: " + routes);
            }
            int b = ThreadLocalRandom.current().nextInt(213, 251);
            int c = ThreadLocalRandom.current().nextInt(0, 256);
            String candidate = "10." + b + "." + c + ".0/24";
            if (!clashes(candidate, routes)) {
                subnet = candidate;
                prefix = "10." + b + "." + c + ".";
            }
        }
        System.out.println("CniNetworkIT: bridge " + bridge + ", network " + networkName + ", subnet " + subnet);
    }

    @BeforeEach
    void newNetwork() {
        net = new CniNetwork(PLUGINS, state, networkName, bridge, subnet, TIMEOUT);
    }

    @AfterEach
    void cleanUp() throws Exception {
        try {
            for (String id : net.holders()) {
                net.detach(id, Optional.empty());
            }
            assertThat(net.holders()).isEmpty();
        } finally {
            for (Process p : processes) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void removeBridgeAndRules() throws Exception {
        if (bridge == null) {
            return;
        }
        if (Commands.runs("ip", "link", "show", bridge)) {
            Commands.output("ip", "link", "del", bridge);
        }
        List<String> left = ourRules();
        removeRules(left);
        System.out.printf("CniNetworkIT timing, all calls: attach %s; detach %s%n", stats(ATTACH_NANOS), stats(DETACH_NANOS));
        System.out.printf("CniNetworkIT timing, 10 cycles on a warm bridge: attach %s; detach %s%n",
                stats(CYCLE_ATTACH_NANOS), stats(CYCLE_DETACH_NANOS));
        assertThat(left).as("iptables rules the plugins left for " + subnet).isEmpty();
    }

    // (1) and (2): two attached namespaces reach each other and the host; an unattached one reaches neither.
    @Test
    void attachedNamespacesReachEachOtherAndTheHostButAnUnattachedOneReachesNone() throws Exception {
        long a = namespace();
        long b = namespace();
        long untrusted = namespace();
        Attachment atA = attach("ctr-a", a);
        Attachment atB = attach("ctr-b", b);

        assertThat(atA.address()).startsWith(prefix).isNotEqualTo(atB.address());
        assertThat(atB.address()).startsWith(prefix);
        assertThat(atA.prefixLength()).isEqualTo(24);
        assertThat(atA.gateway()).isEqualTo(prefix + "1").isEqualTo(atB.gateway());
        assertThat(Commands.output("nsenter", "--net=" + ns(a), "ip", "-4", "-o", "addr", "show", "eth0")).contains(atA.address() + "/24");
        assertThat(Commands.output("nsenter", "--net=" + ns(a), "ip", "route")).contains("default via " + prefix + "1 dev eth0");
        // The bridge's masquerade (ipMasq) and the firewall plugin's forward rules exist for the address.
        assertThat(Commands.output("iptables-save", "-t", "nat")).contains("-A POSTROUTING -s " + atA.address() + "/32");
        assertThat(Commands.output("iptables-save", "-t", "filter")).contains("-A CNI-FORWARD -s " + atA.address() + "/32 -j ACCEPT");

        // One the host has free: the host's listener shares its ports with everything else running
        // here (a random one once collided with another lane's connection, and the host's nc never
        // listened); the namespaces' own ports are theirs alone.
        int port = hostFreePort();
        listen(a, port, "from-a");
        listen(b, port, "from-b");
        listen(0, port, "from-host");
        assertThat(probe(b, atA.address(), port, true)).as("b reaches a").contains("from-a");
        assertThat(probe(a, atB.address(), port, true)).as("a reaches b").contains("from-b");
        assertThat(probe(a, atA.gateway(), port, true)).as("a reaches the host at the gateway").contains("from-host");

        // The same probe, from a namespace that was never attached (an untrusted allocation's).
        assertThat(probe(untrusted, atA.address(), port, false)).doesNotContain("from-a");
        assertThat(probe(untrusted, atB.address(), port, false)).doesNotContain("from-b");
        assertThat(probe(untrusted, atA.gateway(), port, false)).doesNotContain("from-host");
        assertThat(Commands.output("nsenter", "--net=" + ns(untrusted), "ip", "-o", "link")).doesNotContain("eth0");
    }

    // (3): a second attach answers from the record: same address, one lease, one interface.
    @Test
    void attachIsIdempotent() throws Exception {
        long pid = namespace();
        Attachment first = attach("ctr-same", pid);
        Attachment second = attach("ctr-same", pid);
        assertThat(second).isEqualTo(first);
        assertThat(leasesOf("ctr-same")).containsExactly(first.address());
        assertThat(Commands.output("ip", "-o", "link", "show", "master", bridge).lines().count()).isEqualTo(1);

        // Another namespace under the same container id is refused, and the attachment stays.
        long other = namespace();
        assertThatThrownBy(() -> net.attach("ctr-same", ns(other)))
                .isInstanceOf(NetworkException.class)
                .hasMessageContaining("ctr-same is attached to another network namespace")
                .hasMessageNotContaining("\n");
        assertThat(leasesOf("ctr-same")).containsExactly(first.address());
    }

    // (3, crash): the bridge ADD ran but the agent died before recording it → DEL, then ADD again.
    @Test
    void attachAfterACrashBeforeTheRecordDeletesAndAddsAgain() throws Exception {
        long pid = namespace();
        // Exactly what attach does up to the crash: pin the namespace, run the bridge plugin's ADD.
        Path pin = Files.createDirectories(state.resolve("netns")).resolve("ctr-crash");
        Files.createFile(pin);
        Commands.output("mount", "--bind", ns(pid).toString(), pin.toString());
        ProcessBuilder add = new ProcessBuilder(PLUGINS.resolve("bridge").toString()).redirectErrorStream(true);
        add.environment().putAll(java.util.Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "ctr-crash", "CNI_NETNS", pin.toString(),
                "CNI_IFNAME", "eth0", "CNI_PATH", PLUGINS.toString()));
        Process plugin = add.start();
        plugin.getOutputStream().write(net.addConfig());
        plugin.getOutputStream().close();
        String result = new String(plugin.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(plugin.waitFor()).as(result).isZero();
        List<String> leased = leasesOf("ctr-crash");
        assertThat(leased).hasSize(1);
        assertThat(net.holders()).containsExactly("ctr-crash");

        Attachment again = attach("ctr-crash", pid);
        assertOneAttachment("ctr-crash", pid, again);
        if (!again.address().equals(leased.getFirst())) {
            assertThat(Commands.output("iptables-save")).doesNotContain(leased.getFirst() + "/32");
        }
    }

    // (3, crash): the chain's last plugin may have run but the record still says incomplete → DEL with it, ADD again.
    @Test
    void attachWithAnIncompleteRecordDeletesAndAddsAgain() throws Exception {
        long pid = namespace();
        Attachment first = attach("ctr-half", pid);
        Path record = state.resolve("attachments").resolve("ctr-half.json");
        Files.writeString(record, Files.readString(record).replace("\"complete\":true", "\"complete\":false"));

        Attachment again = attach("ctr-half", pid);
        assertOneAttachment("ctr-half", pid, again);
        if (!again.address().equals(first.address())) {
            assertThat(Commands.output("iptables-save")).doesNotContain(first.address() + "/32");
        }
    }

    // A lost record (damage, or removed by hand): the lease stands in for the cached result on DEL.
    @Test
    void detachWithALostRecordStillRemovesTheFirewallRules() throws Exception {
        long pid = namespace();
        Attachment at = attach("ctr-lost", pid);
        Files.delete(state.resolve("attachments").resolve("ctr-lost.json"));
        detach("ctr-lost", Optional.empty());
        assertThat(Commands.output("iptables-save")).doesNotContain(at.address() + "/32");
        assertThat(leasesOf("ctr-lost")).isEmpty();
    }

    void assertOneAttachment(String id, long pid, Attachment at) throws Exception {
        assertThat(leasesOf(id)).containsExactly(at.address());
        assertThat(Commands.output("nsenter", "--net=" + ns(pid), "ip", "-4", "-o", "addr", "show", "eth0").lines().count()).isEqualTo(1);
        List<String> masquerade = Commands.output("iptables-save", "-t", "nat").lines()
                .filter(l -> l.startsWith("-A POSTROUTING -s " + prefix)).toList();
        assertThat(masquerade).hasSize(1);
        assertThat(masquerade.getFirst()).startsWith("-A POSTROUTING -s " + at.address() + "/32 ").contains("id: \\\"" + id + "\\\"");
        assertThat(Commands.output("iptables-save", "-t", "filter").lines().filter(l -> l.contains(prefix)).toList())
                .containsExactly("-A CNI-FORWARD -d " + at.address() + "/32 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT",
                        "-A CNI-FORWARD -s " + at.address() + "/32 -j ACCEPT");
    }

    // (4): detach with the namespace's process killed releases the lease and removes every rule.
    @Test
    void detachReleasesTheLeaseAndRulesAfterTheProcessIsGone() throws Exception {
        long pid = namespace();
        Attachment at = attach("ctr-gone", pid);
        Path lease = state.resolve("ipam").resolve(networkName).resolve(at.address());
        assertThat(Files.readString(lease)).startsWith("ctr-gone");
        assertThat(Commands.output("iptables-save")).contains(at.address() + "/32");

        kill(pid);
        assertThat(Path.of("/proc/" + pid)).doesNotExist();
        detach("ctr-gone", Optional.empty());

        assertThat(lease).doesNotExist();
        assertThat(Commands.output("iptables-save")).doesNotContain(at.address() + "/32").doesNotContain("id: \\\"ctr-gone\\\"");
        assertThat(Commands.output("ip", "-o", "link", "show", "master", bridge)).isBlank();
        assertThat(state.resolve("netns").resolve("ctr-gone")).doesNotExist();
        assertThat(net.holders()).doesNotContain("ctr-gone");

        detach("ctr-gone", Optional.empty()); // again: not attached, still fine
        detach("never-attached", Optional.of(ns(namespace())));
    }

    // (4, no namespace at all): the pin gone too (as after a reboot), DEL still releases the address.
    @Test
    void detachWithoutAnyNamespaceStillReleasesTheAddress() throws Exception {
        long pid = namespace();
        Attachment at = attach("ctr-nons", pid);
        kill(pid);
        Path pin = state.resolve("netns").resolve("ctr-nons");
        Commands.output("umount", pin.toString());

        detach("ctr-nons", Optional.of(Path.of("/proc/" + pid + "/ns/net")));
        assertThat(state.resolve("ipam").resolve(networkName).resolve(at.address())).doesNotExist();
        assertThat(Commands.output("iptables-save", "-t", "filter")).doesNotContain(at.address() + "/32"); // firewall: from the record
        assertThat(pin).doesNotExist();
        assertThat(net.holders()).isEmpty();
        // Without a namespace the bridge plugin cannot find the address to undo its masquerade chain:
        // this is why attach pins the namespace. removeBridgeAndRules must not count it as a leak.
        removeRules(ourRules());
    }

    // (5)
    @Test
    void holdersListAttachedContainersOnly() throws Exception {
        attach("ctr-keep", namespace());
        attach("ctr-drop", namespace());
        assertThat(net.holders()).containsExactlyInAnyOrder("ctr-keep", "ctr-drop");
        detach("ctr-drop", Optional.empty());
        assertThat(net.holders()).containsExactly("ctr-keep");
        // A new CniNetwork on the same state (an agent restart) sees the same.
        assertThat(new CniNetwork(PLUGINS, state, networkName, bridge, subnet, TIMEOUT).holders()).containsExactly("ctr-keep");
    }

    // (6)
    @Test
    void aMissingPluginDirOrPluginIsOneClearLine() throws Exception {
        long pid = namespace();
        Path missing = state.resolve("no-such-cni-dir");
        CniNetwork broken = new CniNetwork(missing, state, networkName, bridge, subnet, TIMEOUT);
        assertThatThrownBy(() -> broken.attach("ctr-x", ns(pid)))
                .isInstanceOf(NetworkException.class)
                .hasMessage("CNI plugin directory " + missing + " does not exist (Debian: apt-get install containernetworking-plugins)");

        Path partial = Files.createDirectories(state.resolve("partial-cni"));
        Files.copy(PLUGINS.resolve("bridge"), partial.resolve("bridge"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(PLUGINS.resolve("host-local"), partial.resolve("host-local"), StandardCopyOption.COPY_ATTRIBUTES);
        CniNetwork noFirewall = new CniNetwork(partial, state, networkName, bridge, subnet, TIMEOUT);
        assertThatThrownBy(() -> noFirewall.attach("ctr-x", ns(pid)))
                .isInstanceOf(NetworkException.class)
                .hasMessage("CNI plugin firewall is missing: no executable " + partial.resolve("firewall"));
        assertThat(net.holders()).isEmpty();
    }

    @Test
    void aPluginsOwnErrorIsOneLineAndTheFailedAddIsUndone() throws Exception {
        // A device that is not a bridge under the bridge's name: the bridge plugin refuses it.
        String notABridge = "kd" + bridge.substring(2);
        Commands.output("ip", "link", "add", notABridge, "type", "veth", "peer", "name", "kp" + bridge.substring(2));
        try {
            CniNetwork clash = new CniNetwork(PLUGINS, state, networkName, notABridge, subnet, TIMEOUT);
            long pid = namespace();
            assertThatThrownBy(() -> clash.attach("ctr-clash", ns(pid)))
                    .isInstanceOf(NetworkException.class)
                    .hasMessageStartingWith("CNI plugin bridge ADD for container ctr-clash failed: CNI error ")
                    .hasMessageContaining(notABridge)
                    .hasMessageNotContaining("\n");
            assertThat(clash.holders()).isEmpty();
            assertThat(Commands.output("nsenter", "--net=" + ns(pid), "ip", "-o", "link")).doesNotContain("eth0");
        } finally {
            Commands.output("ip", "link", "del", notABridge);
        }

        Path file = Files.writeString(state.resolve("not-a-namespace"), "x");
        assertThatThrownBy(() -> net.attach("ctr-file", file))
                .isInstanceOf(NetworkException.class)
                .hasMessage(file + " is not a network namespace (expected /proc/<pid>/ns/net or a bind mount of one)");
        assertThatThrownBy(() -> net.attach("ctr-host", Path.of("/proc/self/ns/net")))
                .isInstanceOf(NetworkException.class)
                .hasMessageContaining("is the node's own network namespace");
        assertThat(net.holders()).isEmpty();
    }

    @Test
    void attachAndDetachCycles() throws Exception {
        long pid = namespace();
        for (int i = 0; i < 10; i++) {
            long start = System.nanoTime();
            Attachment at = attach("ctr-cycle", pid);
            long attached = System.nanoTime();
            assertThat(at.address()).startsWith(prefix);
            detach("ctr-cycle", Optional.of(ns(pid)));
            CYCLE_DETACH_NANOS.add(System.nanoTime() - attached);
            CYCLE_ATTACH_NANOS.add(attached - start);
            assertThat(leasesOf("ctr-cycle")).isEmpty();
            assertThat(Commands.output("nsenter", "--net=" + ns(pid), "ip", "-o", "link")).doesNotContain("eth0");
        }
    }

    // ---- namespaces, probes, leases and rules

    Attachment attach(String id, long pid) throws Exception {
        long start = System.nanoTime();
        Attachment at = net.attach(id, ns(pid));
        ATTACH_NANOS.add(System.nanoTime() - start);
        return at;
    }

    void detach(String id, Optional<Path> netns) throws Exception {
        long start = System.nanoTime();
        net.detach(id, netns);
        DETACH_NANOS.add(System.nanoTime() - start);
    }

    static Path ns(long pid) {
        return Path.of("/proc/" + pid + "/ns/net");
    }

    /** A process in a fresh network namespace; returned once the namespace is really its own. */
    long namespace() throws Exception {
        Process p = new ProcessBuilder("unshare", "--net", "sleep", "600")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
        processes.add(p);
        Object host = Files.getAttribute(Path.of("/proc/self/ns/net"), "unix:ino");
        for (int i = 0; i < 500; i++) {
            // Until unshare has called unshare(2), /proc/PID/ns/net is still the host's.
            if (p.isAlive() && !host.equals(Files.getAttribute(ns(p.pid()), "unix:ino"))) {
                return p.pid();
            }
            Thread.sleep(10);
        }
        throw new IllegalStateException("unshare --net did not make a namespace");
    }

    void kill(long pid) throws Exception {
        for (Process p : processes) {
            if (p.pid() == pid) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** A TCP listener that answers every connection with {@code word}; pid 0 is the host. */
    static int hostFreePort() throws IOException {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    void listen(long pid, int port, String word) throws IOException {
        List<String> argv = new ArrayList<>();
        if (pid != 0) {
            argv.addAll(List.of("nsenter", "--net=" + ns(pid)));
        }
        argv.addAll(List.of("busybox", "nc", "-ll", "-p", String.valueOf(port), "-e", "/bin/echo", word));
        processes.add(new ProcessBuilder(argv).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start());
    }

    /** Connects from the namespace and returns what came back; the expected success retries while listeners start. */
    String probe(long fromPid, String address, int port, boolean expectSuccess) throws Exception {
        String got = "";
        for (int i = 0; i < (expectSuccess ? 50 : 1); i++) {
            Process p = new ProcessBuilder("nsenter", "--net=" + ns(fromPid), "busybox", "nc", "-w", "2", address, String.valueOf(port))
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).redirectErrorStream(true).start();
            got = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            if (!expectSuccess || got.contains("from-")) {
                return got;
            }
            Thread.sleep(100);
        }
        return got;
    }

    List<String> leasesOf(String id) throws IOException {
        Path dir = state.resolve("ipam").resolve(networkName);
        List<String> held = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    if (f.getFileName().toString().startsWith(prefix) && Files.readString(f).startsWith(id + "\r\n")
                            || f.getFileName().toString().startsWith(prefix) && Files.readString(f).strip().equals(id)) {
                        held.add(f.getFileName().toString());
                    }
                }
            }
        }
        return held;
    }

    /** iptables-save lines (table-qualified) of this test's subnet or network, as "-t TABLE -A …". */
    static List<String> ourRules() throws Exception {
        List<String> rules = new ArrayList<>();
        for (String table : List.of("nat", "filter")) {
            for (String line : Commands.output("iptables-save", "-t", table).lines().toList()) {
                if (line.startsWith("-A ") && (line.contains(prefix) || line.contains("name: \\\"" + networkName + "\\\""))) {
                    rules.add("-t " + table + " " + line);
                }
            }
        }
        return rules;
    }

    /** Deletes the rules, then empties and drops the per-container CNI-… chains they used. */
    static void removeRules(List<String> rules) throws Exception {
        Set<String> chains = new LinkedHashSet<>();
        Matcher m;
        for (String rule : rules) {
            Commands.runs("sh", "-c", "iptables " + rule.replaceFirst(" -A ", " -D "));
            m = Pattern.compile("-j (CNI-[0-9a-f]{24})").matcher(rule);
            if (m.find()) {
                chains.add(m.group(1));
            }
        }
        for (String chain : chains) {
            Commands.runs("iptables", "-t", "nat", "-F", chain);
            Commands.runs("iptables", "-t", "nat", "-X", chain);
        }
    }

    /** Whether a /24 overlaps any destination in `ip route` / `ip addr` output. */
    static boolean clashes(String candidate, String routes) {
        long[] c = cidr(candidate);
        Matcher m = Pattern.compile("(\\d+\\.\\d+\\.\\d+\\.\\d+)(/\\d+)?").matcher(routes);
        while (m.find()) {
            long[] r = cidr(m.group(1) + (m.group(2) == null ? "/32" : m.group(2)));
            int common = (int) Math.min(c[1], r[1]);
            long mask = common == 0 ? 0 : (0xFFFFFFFFL << (32 - common)) & 0xFFFFFFFFL;
            if ((c[0] & mask) == (r[0] & mask) && r[1] > 0) {
                return true;
            }
        }
        return false;
    }

    static long[] cidr(String s) {
        String[] parts = s.split("/");
        long a = 0;
        for (String octet : parts[0].split("\\.")) {
            a = a << 8 | Long.parseLong(octet);
        }
        return new long[] {a, Long.parseLong(parts[1])};
    }

    static String stats(List<Long> nanos) {
        if (nanos.isEmpty()) {
            return "none";
        }
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        return String.format("n=%d min %.0f ms, median %.0f ms, max %.0f ms", sorted.size(), sorted.getFirst() / 1e6,
                sorted.get(sorted.size() / 2) / 1e6, sorted.getLast() / 1e6);
    }
}
