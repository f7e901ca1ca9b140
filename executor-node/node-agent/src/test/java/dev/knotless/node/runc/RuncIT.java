package dev.knotless.node.runc;

import dev.knotless.testkit.Commands;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.testkit.TestImages;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real runc, as root, on a rootfs exported from the project's test image: the hardening is observed
 * from inside a run, and every lifecycle operation is checked against the real runtime.
 */
class RuncIT {

    static final long MEMORY = 96L * 1024 * 1024;
    static final boolean CGROUP_V2 = Files.exists(Path.of("/sys/fs/cgroup/cgroup.controllers"));

    @TempDir
    static Path shared;

    static Path rootfs;

    @TempDir
    Path dir;

    Runc runc;
    final List<String> created = new ArrayList<>();
    final OciConfig oci = new OciConfig();

    @BeforeAll
    static void exportTestImage() throws Exception {
        assumeTrue(System.getProperty("user.name").equals("root"), "runc needs root; these tests run as root only");
        assumeTrue(Commands.runs("runc", "--version"), "the runc binary is not installed (apt-get install -y runc)");
        String image = TestImages.ensureBuilt();
        String container = Commands.output("docker", "create", image, "true").strip();
        try {
            Path tar = shared.resolve("rootfs.tar");
            exec("docker", "export", "-o", tar.toString(), container);
            rootfs = Files.createDirectories(shared.resolve("rootfs"));
            exec("tar", "-xf", tar.toString(), "-C", rootfs.toString());
            Files.delete(tar);
        } finally {
            exec("docker", "rm", "-f", container);
        }
    }

    @AfterAll
    static void removeRootfs() throws Exception {
        if (rootfs != null) {
            exec("rm", "-rf", "--one-file-system", rootfs.toString()); // quietly: the rootfs is full of absolute symlinks
        }
    }

    @BeforeEach
    void newRoot() throws IOException {
        runc = new Runc("runc", dir.resolve("state"), Duration.ofSeconds(60));
    }

    @AfterEach
    void deleteEverything() throws Exception {
        for (String id : created) {
            runc.delete(id);
        }
        assertThat(runc.list()).isEmpty();
    }

    String newId() {
        String id = "knotless-it-" + UUID.randomUUID().toString().substring(0, 8);
        created.add(id);
        return id;
    }

    BundleSpec spec(String id, NodeOptions node) throws IOException {
        Path alloc = dir.resolve("alloc").resolve(id);
        BundleSpec.AllocationDirs dirs = BundleSpec.AllocationDirs.under(alloc);
        Files.createDirectories(dirs.work());
        Files.createDirectories(dirs.steps());
        Files.createDirectories(dirs.outputs());
        HostsFile.write(dirs.hosts(), id, Optional.empty());
        return new BundleSpec(id, rootfs, dirs, new BundleSpec.Resources(MEMORY, 500), RunAs.ROOT,
                List.of("HOME=/root"), Optional.empty(), Map.of("dev.knotless.test", "RuncIT"), node);
    }

    Path bundle(BundleSpec spec) throws IOException {
        return bundle(spec, oci.configJson(spec));
    }

    Path bundle(BundleSpec spec, byte[] config) throws IOException {
        Path bundle = Files.createDirectories(dir.resolve("bundles").resolve(spec.id()));
        Files.write(bundle.resolve("config.json"), config);
        return bundle;
    }

    record Exec(int code, String out, String err) {}

    Exec sh(BundleSpec spec, String script) throws Exception {
        return sh(spec, script, InputStream.nullInputStream());
    }

    Exec sh(BundleSpec spec, String script, InputStream stdin) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = runc.exec(spec.id(), oci.execProcessJson(spec, List.of("/bin/sh", "-c", script), List.of(), "/work"),
                stdin, out, err);
        return new Exec(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    BundleSpec running(NodeOptions node) throws Exception {
        BundleSpec spec = spec(newId(), node);
        long started = System.nanoTime();
        runc.create(spec.id(), bundle(spec));
        assertThat(runc.start(spec.id()).status()).isEqualTo(ContainerState.Status.RUNNING);
        System.out.println("created and started " + spec.id() + " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
        return spec;
    }

    @Test
    void hardeningIsObservedFromInsideARun() throws Exception {
        BundleSpec spec = running(NodeOptions.DEFAULT);

        Exec status = sh(spec, "grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status");
        assertThat(status.code()).as(status.err()).isZero();
        // the default hardening's seven: CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID (bits 0 1 3 4 5 6 7)
        assertThat(status.out()).contains("CapEff:\t00000000000000fb", "CapPrm:\t00000000000000fb",
                "CapBnd:\t00000000000000fb", "CapInh:\t0000000000000000", "CapAmb:\t0000000000000000",
                "NoNewPrivs:\t1", "Seccomp:\t2");

        String pids = CGROUP_V2 ? "/sys/fs/cgroup/pids.max" : "/sys/fs/cgroup/pids/pids.max";
        String memory = CGROUP_V2 ? "/sys/fs/cgroup/memory.max" : "/sys/fs/cgroup/memory/memory.limit_in_bytes";
        String quota = CGROUP_V2 ? "/sys/fs/cgroup/cpu.max" : "/sys/fs/cgroup/cpu/cpu.cfs_quota_us";
        Exec limits = sh(spec, "cat " + pids + " " + memory + " " + quota);
        assertThat(limits.code()).as(limits.err()).isZero();
        assertThat(limits.out().lines().toList()).containsExactly("256", String.valueOf(MEMORY),
                CGROUP_V2 ? "50000 100000" : "50000");

        // The limits are the container's own cgroup, not the host's, and they hold.
        Exec self = sh(spec, "cat /proc/self/cgroup");
        assertThat(self.out()).doesNotContain("/knotless/"); // cgroup namespace: the container sees itself at /
        Exec root = sh(spec, "echo x > /proc/sys/kernel/domainname; cat /proc/kcore | head -c 1 | wc -c; id -u");
        assertThat(root.err()).contains("Read-only file system");
        assertThat(root.out()).isEqualTo("0\n0\n");

        Exec net = sh(spec, "ls /sys/class/net");
        assertThat(net.out().strip()).isEqualTo("lo"); // a fresh network namespace: nothing but loopback

        // dd touches its whole 200 MiB buffer: over the 96 MiB limit, the kernel's OOM killer ends it.
        assertThat(sh(spec, "dd if=/dev/zero of=/dev/null bs=200M count=1").code()).isEqualTo(137);
        assertThat(sh(spec, "dd if=/dev/zero of=/dev/null bs=50M count=1").code()).isZero();

        // Last, since it leaves the container without a free PID: fork until refused (busybox sh then exits 2),
        // and read the container's cgroup from the host.
        Exec fork = sh(spec, "for i in $(seq 300); do sleep 60 >/dev/null 2>&1 & done");
        assertThat(fork.code()).isNotZero();
        assertThat(fork.err()).contains("fork");
        Path cgroup = Path.of(CGROUP_V2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/pids").resolve("knotless").resolve(spec.id());
        int processes = Integer.parseInt(Files.readString(cgroup.resolve("pids.current")).strip());
        assertThat(processes).isBetween(200, 256);
        assertThat(Files.readString(cgroup.resolve("pids.events"))).matches("(?s)max [1-9][0-9]*\\n.*");
    }

    @Test
    void seccompItselfDeniesUnshare() throws Exception {
        // unshare(CLONE_NEWUSER) needs no capability, so without the filter it works even with every
        // capability dropped; with it, EPERM. The control container proves the difference is seccomp.
        BundleSpec filtered = running(NodeOptions.DEFAULT);
        Exec denied = sh(filtered, "unshare -U true");
        assertThat(denied.code()).isNotZero();
        assertThat(denied.err()).contains("Operation not permitted");

        BundleSpec control = spec(newId(), NodeOptions.DEFAULT);
        ObjectNode config = (ObjectNode) new ObjectMapper().readTree(oci.configJson(control));
        ((ObjectNode) config.get("linux")).remove("seccomp");
        runc.create(control.id(), bundle(control, new ObjectMapper().writeValueAsBytes(config)));
        runc.start(control.id());
        Exec allowed = sh(control, "grep Seccomp: /proc/self/status; grep CapEff /proc/self/status; unshare -U true && echo unshared");
        assertThat(allowed.out()).contains("Seccomp:\t0", "CapEff:\t00000000000000fb", "unshared");
    }

    @Test
    void readOnlyRootAndRunAs() throws Exception {
        BundleSpec spec = running(new NodeOptions(true, Optional.of(RunAs.parse("1234:5678")), Optional.empty(), Optional.empty()));
        Exec e = sh(spec, "id -u; id -g; touch /etc/x 2>&1; touch /tmp/x && echo tmp-ok; ls -ld /work | cut -c1-10");
        assertThat(e.out()).startsWith("1234\n5678\n").contains("Read-only file system", "tmp-ok");
    }

    @Test
    void createStartAndDeleteAreIdempotent() throws Exception {
        BundleSpec spec = spec(newId(), NodeOptions.DEFAULT);
        Path bundle = bundle(spec);
        ContainerState first = runc.create(spec.id(), bundle);
        assertThat(first.status()).isEqualTo(ContainerState.Status.CREATED);
        assertThat(first.annotations()).containsEntry("dev.knotless.test", "RuncIT")
                .containsEntry(OciConfig.DIGEST_ANNOTATION, oci.digestOf(oci.configJson(spec)));
        assertThat(runc.create(spec.id(), bundle)).isEqualTo(first);

        ContainerState started = runc.start(spec.id());
        assertThat(started.status()).isEqualTo(ContainerState.Status.RUNNING);
        assertThat(runc.start(spec.id())).isEqualTo(started);
        assertThat(runc.create(spec.id(), bundle)).isEqualTo(started);

        // Same id, other config (more memory): refused, the running container untouched.
        BundleSpec other = new BundleSpec(spec.id(), spec.rootfs(), spec.dirs(),
                new BundleSpec.Resources(2 * MEMORY, 500), spec.user(), spec.env(), spec.netns(), spec.annotations(), spec.node());
        Path otherBundle = Files.createDirectories(dir.resolve("other"));
        Files.write(otherBundle.resolve("config.json"), oci.configJson(other));
        assertThatThrownBy(() -> runc.create(spec.id(), otherBundle))
                .isInstanceOf(RuncException.class)
                .hasMessageStartingWith("create " + spec.id() + ": a container with this id exists with config sha256:")
                .hasMessageEndingWith("; refused")
                .hasMessageNotContaining("\n");
        assertThat(runc.state(spec.id()).orElseThrow().pid()).isEqualTo(started.pid());

        assertThat(runc.list()).extracting(ContainerState::id).containsExactly(spec.id());
        Path leaf = Path.of(CGROUP_V2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/pids", "knotless", spec.id());
        assertThat(leaf).isDirectory();
        runc.delete(spec.id());
        assertThat(runc.state(spec.id())).isEmpty();
        assertThat(leaf).doesNotExist();
        assertThat(runc.initLog(spec.id())).doesNotExist();
        runc.delete(spec.id());
        runc.kill(spec.id(), "KILL");
        assertThat(runc.list()).isEmpty();
    }

    @Test
    void execExitCodesStreamsAndFailures() throws Exception {
        BundleSpec spec = running(NodeOptions.DEFAULT);
        long started = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            assertThat(sh(spec, "exit 0").code()).isZero();
        }
        System.out.println("runc exec of a trivial process: " + (System.nanoTime() - started) / 10_000_000 + " ms each");
        assertThat(sh(spec, "exit 3").code()).isEqualTo(3);
        assertThat(sh(spec, "kill -9 $$").code()).isEqualTo(137);

        Exec echo = sh(spec, "tr a-z A-Z; echo to-stderr >&2; pwd", new ByteArrayInputStream("hello\n".getBytes(StandardCharsets.UTF_8)));
        assertThat(echo.code()).isZero();
        assertThat(echo.out()).isEqualTo("HELLO\n/work\n");
        assertThat(echo.err()).isEqualTo("to-stderr\n");

        // Writes to /work land in the allocation's host directory.
        assertThat(sh(spec, "echo made > /work/f").code()).isZero();
        assertThat(Files.readString(spec.dirs().work().resolve("f"))).isEqualTo("made\n");
        assertThat(sh(spec, "touch /steps/x").code()).isNotZero();

        // runc's own failure is not an exit code.
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        assertThatThrownBy(() -> runc.exec(spec.id(), oci.execProcessJson(spec, List.of("/no/such/binary"), List.of(), "/"),
                InputStream.nullInputStream(), sink, sink))
                .isInstanceOf(RuncException.class)
                .hasMessageStartingWith("exec in " + spec.id() + " failed: ")
                .hasMessageContaining("/no/such/binary")
                .hasMessageNotContaining("\n");
        assertThatThrownBy(() -> runc.exec("knotless-it-missing", oci.execProcessJson(spec, List.of("true"), List.of(), "/"),
                InputStream.nullInputStream(), sink, sink))
                .isInstanceOf(RuncException.class)
                .hasMessage("exec in knotless-it-missing: no such container");
    }

    @Test
    void aContainerWhosePid1DiesIsReportedStoppedAndNotRestarted() throws Exception {
        BundleSpec spec = running(NodeOptions.DEFAULT);
        long pid = runc.state(spec.id()).orElseThrow().pid();
        assertThat(sh(spec, "kill -9 1").code()).isZero(); // PID 1 ignores KILL from inside its namespace
        assertThat(runc.state(spec.id()).orElseThrow().status()).isEqualTo(ContainerState.Status.RUNNING);

        exec("kill", "-9", String.valueOf(pid)); // from the host it dies, as on OOM or a crash
        ContainerState state = awaitStopped(spec.id());
        assertThat(state.status()).isEqualTo(ContainerState.Status.STOPPED);
        Thread.sleep(500);
        assertThat(runc.state(spec.id()).orElseThrow().status()).isEqualTo(ContainerState.Status.STOPPED);
        assertThatThrownBy(() -> runc.start(spec.id()))
                .isInstanceOf(RuncException.class)
                .hasMessage("start " + spec.id() + ": the container has stopped (its PID 1 exited); it is not restarted");
        assertThatThrownBy(() -> sh(spec, "true"))
                .isInstanceOf(RuncException.class)
                .hasMessage("exec in " + spec.id() + ": the container is stopped, not running");
        runc.kill(spec.id(), "TERM"); // stopped: nothing to do
    }

    /**
     * PID 1 ignores a signal it has no handler for: an idle init without one would never stop on
     * TERM. The TERM is sent once the init catches it (its shell has run its {@code trap}; before
     * that a TERM is ignored, which is why the agent's stop ends with KILL after its grace). A TERM
     * that lands between the shell's check for a caught signal and its {@code wait} is taken but
     * not acted on until the next signal (a clean-clone run met that window once), so the test
     * sends one every 5 s; an init without a handler would outlast all six. How many it took, and
     * how soon it stopped, is printed, not asserted.
     */
    @Test
    void termStopsTheIdleInit() throws Exception {
        BundleSpec spec = running(NodeOptions.DEFAULT);
        awaitCaught(runc.state(spec.id()).orElseThrow().pid(), 15);
        long started = System.nanoTime();
        int sent = 0;
        ContainerState state = runc.state(spec.id()).orElseThrow();
        while (state.status() != ContainerState.Status.STOPPED && sent < 6) {
            runc.kill(spec.id(), "TERM");
            sent++;
            long next = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((state = runc.state(spec.id()).orElseThrow()).status() != ContainerState.Status.STOPPED
                    && System.nanoTime() - next < 0) {
                Thread.sleep(50);
            }
        }
        assertThat(state.status()).as("the idle init after %d TERMs: %s", sent, state)
                .isEqualTo(ContainerState.Status.STOPPED);
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.println("idle init stopped " + millis + " ms after the first TERM, " + sent + " sent");
    }

    @Test
    void aBadBundleFailsWithOneLineFromRunc() throws Exception {
        BundleSpec spec = spec(newId(), NodeOptions.DEFAULT);
        ObjectNode config = (ObjectNode) new ObjectMapper().readTree(oci.configJson(spec));
        ((ObjectNode) config.get("root")).put("path", dir.resolve("no-such-rootfs").toString());
        Path bundle = bundle(spec, new ObjectMapper().writeValueAsBytes(config));
        assertThatThrownBy(() -> runc.create(spec.id(), bundle))
                .isInstanceOf(RuncException.class)
                .hasMessageStartingWith("create " + spec.id() + " failed: ")
                .hasMessageNotContaining("\n");
        assertThat(runc.state(spec.id())).isEmpty();
    }

    /** Waits until process {@code pid} has a handler for {@code signal} (its SigCgt mask); 30 s catch a hang. */
    static void awaitCaught(long pid, int signal) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String caught = "";
        while (System.nanoTime() - deadline < 0) {
            caught = Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                    .filter(l -> l.startsWith("SigCgt:")).findFirst().orElse("SigCgt: 0").substring(7).strip();
            if (new java.math.BigInteger(caught, 16).testBit(signal - 1)) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("process " + pid + " did not catch signal " + signal + " within 30 s; SigCgt " + caught);
    }

    /** Waits until {@code id} has stopped; 30 s only catch one that never does. */
    ContainerState awaitStopped(String id) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        ContainerState state = runc.state(id).orElseThrow();
        while (state.status() != ContainerState.Status.STOPPED) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(id + " did not stop within 30 s; last seen " + state);
            }
            Thread.sleep(50);
            state = runc.state(id).orElseThrow();
        }
        return state;
    }

    static void exec(String... argv) throws Exception {
        Commands.output(argv);
    }
}
