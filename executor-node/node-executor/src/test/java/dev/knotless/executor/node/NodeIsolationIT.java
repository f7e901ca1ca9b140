package dev.knotless.executor.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.Resources;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.Trust;
import dev.knotless.testkit.RecordingOutput;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a run on a node can and cannot do, observed from inside it through the node executor: the
 * hardening of its container, the network it gets (and an untrusted one does not), and an image
 * whose layer does not match its digest.
 */
class NodeIsolationIT {

    private static Path dir;
    private static NodeFixture node;

    @BeforeAll
    static void startNode() throws Exception {
        // A short placement wait: one test shows an untrusted run refused a node shared with a trusted one.
        node = NodeFixture.startOrSkip("knotless-node-isolation", true, new NodeExecutor.Options(Optional.of("default"), Duration.ofSeconds(3), Duration.ofMinutes(1)));
        dir = node.dir;
    }

    @AfterAll
    static void stopNode() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    private static RunSpec.Builder spec() {
        return RunSpec.builder("iso-" + UUID.randomUUID().toString().substring(0, 6), "run-" + UUID.randomUUID().toString().substring(0, 8),
                node.image.reference()).killGrace(Duration.ofSeconds(2));
    }

    private static RecordingOutput run(Session s, String script) {
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(new StepPayload("probe", List.of("/bin/sh", "-c", script), Map.of()), out, StopSignal.none());
        assertThat(outcome).as("stdout: %s%nstderr: %s", out.stdout(), out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        return out;
    }

    @Test
    void aRunSeesTheDefaultCapabilitiesNoNewPrivilegesAPidLimitAndItsMemoryLimit() throws Exception {
        try (Session s = node.executor.start(spec().resources(new Resources(500, 96L << 20)).build(), StopSignal.none())) {
            String status = run(s, "grep -E '^(CapEff|CapPrm|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status").stdout();
            // Hardening.DEFAULT's seven: CHOWN DAC_OVERRIDE FOWNER FSETID KILL SETGID SETUID (bits 0 1 3 4 5 6 7)
            assertThat(status).contains("CapEff:\t00000000000000fb", "CapPrm:\t00000000000000fb", "CapBnd:\t00000000000000fb",
                    "NoNewPrivs:\t1", "Seccomp:\t2");
            String pids = run(s, "cat /sys/fs/cgroup/pids/pids.max 2>/dev/null || cat /sys/fs/cgroup/pids.max").stdout();
            assertThat(pids.strip()).isEqualTo("256");
            String memory = run(s, "cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max").stdout();
            assertThat(Long.parseLong(memory.strip())).isEqualTo(96L << 20);
            RecordingOutput oom = new RecordingOutput();
            StepOutcome hog = s.run(new StepPayload("hog", List.of("/bin/sh", "-c", "dd if=/dev/zero of=/dev/null bs=200M count=1"),
                    Map.of()), oom, StopSignal.none());
            assertThat(hog).isEqualTo(new StepOutcome.Exited(137));
        }
    }

    @Test
    void twoTrustedRunsGetTheirOwnAddressesAndAnUntrustedRunReachesNeither() throws Exception {
        try (Session a = node.executor.start(spec().build(), StopSignal.none());
                Session b = node.executor.start(spec().build(), StopSignal.none())) {
            String addressA = address(a);
            String addressB = address(b);
            String subnet = node.subnet.orElseThrow();
            String prefix = subnet.substring(0, subnet.lastIndexOf('.') + 1);
            assertThat(addressA).startsWith(prefix).isNotEqualTo(addressB);
            assertThat(addressB).startsWith(prefix);
            run(a, "mkdir -p /tmp/www && echo hello-from-a > /tmp/www/x && httpd -p 8080 -h /tmp/www");
            // The control: the probe works between the two trusted runs.
            assertThat(run(b, probe(addressA)).stdout()).contains("200 OK").endsWith("hello-from-a\n");

            // An untrusted run is refused a node shared with trusted runs; give it the node once they are gone.
            a.close();
            b.close();
            try (Session c = node.executor.start(spec().trust(Trust.UNTRUSTED).build(), StopSignal.none())) {
                String interfaces = run(c, "ls /sys/class/net").stdout();
                assertThat(interfaces.strip()).isEqualTo("lo");
                RecordingOutput probe = new RecordingOutput();
                StepOutcome outcome = c.run(new StepPayload("probe", List.of("/bin/sh", "-c",
                        probe(addressA)), Map.of()), probe, StopSignal.none());
                assertThat(outcome).isNotEqualTo(new StepOutcome.Exited(0));
                assertThat(probe.stdout()).doesNotContain("hello");
            }
        }
    }

    @Test
    void anUntrustedRunGetsANodeOfItsOwn() throws Exception {
        try (Session trusted = node.executor.start(spec().build(), StopSignal.none())) {
            assertThatThrownBy(() -> node.executor.start(spec().trust(Trust.UNTRUSTED).build(), StopSignal.none()))
                    .isInstanceOfSatisfying(ExecutorException.class, e -> {
                        assertThat(e.failure().kind()).isEqualTo(Failure.Kind.UNSCHEDULABLE);
                        assertThat(e.failure().reason()).contains("untrusted run, which needs a node of its own");
                    });
        }
    }

    @Test
    void anImageWhoseLayerDoesNotMatchItsDigestIsRefusedAndNothingIsLeft() throws Exception {
        var digest = node.image.layers().getFirst().digest();
        String layer = digest.toString().substring("sha256:".length());
        Path data = node.image.blobData(digest);
        byte[] original = Files.readAllBytes(data);
        // Damaged in the registry's storage (it checked the digest on push); a fresh node has none of it cached.
        try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
            f.seek(original.length / 2);
            f.write(original[original.length / 2] ^ 0x01);
        }
        try {
            NodeFixture fresh = NodeFixture.startWith(Files.createTempDirectory("knotless-node-corrupt"), node.image, false,
                    NodeExecutor.Options.DEFAULT, false);
            try {
                RunSpec spec = RunSpec.builder("iso-corrupt", "run-corrupt", node.image.reference()).build();
                assertThatThrownBy(() -> fresh.executor.start(spec, StopSignal.none()))
                        .isInstanceOfSatisfying(ExecutorException.class, e -> {
                            assertThat(e.failure().kind()).isEqualTo(Failure.Kind.IMAGE);
                            assertThat(e.failure().reason()).contains("does not match its digest", layer).doesNotContain("\n");
                        });
                assertThat(fresh.allocationsOf("iso-corrupt")).isEmpty();
                Path rootfs = fresh.dir.resolve("state/images/rootfs");
                if (Files.exists(rootfs)) {
                    try (Stream<Path> unpacked = Files.list(rootfs)) {
                        assertThat(unpacked).isEmpty();
                    }
                }
            } finally {
                fresh.close();
            }
        } finally {
            Files.write(data, original);
        }
    }

    /** An HTTP GET with BusyBox nc (the test image's static wget crashes). */
    private static String probe(String address) {
        return "printf 'GET /x HTTP/1.0\\r\\n\\r\\n' | nc -w 5 " + address + " 8080";
    }

    private static String address(Session s) {
        String out = run(s, "ip -4 -o addr show eth0").stdout();
        return out.replaceAll("(?s).*inet (\\d+\\.\\d+\\.\\d+\\.\\d+)/.*", "$1");
    }
}
