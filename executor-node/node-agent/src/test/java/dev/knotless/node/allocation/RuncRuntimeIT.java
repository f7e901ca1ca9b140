package dev.knotless.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.knotless.executor.ShellPayload;
import dev.knotless.node.agent.Agent;
import dev.knotless.node.agent.Attachment;
import dev.knotless.node.agent.Ledger;
import dev.knotless.node.agent.MacKey;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.Envelope;
import dev.knotless.node.protocol.Keyset;
import dev.knotless.node.protocol.Outcome;
import dev.knotless.node.protocol.ProtocolJson;
import dev.knotless.node.protocol.SignedFrame;
import dev.knotless.node.protocol.Signer;
import java.security.KeyPair;
import java.time.Clock;
import dev.knotless.node.agent.AllocationRuntime;
import dev.knotless.node.image.ImagePuller;
import dev.knotless.node.image.Platform;
import dev.knotless.node.image.ProjectImage;
import dev.knotless.registry.Registry;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.runc.NodeOptions;
import dev.knotless.node.runc.OciConfig;
import dev.knotless.node.runc.Runc;
import dev.knotless.testkit.FakeClock;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runtime's own idempotency, with real runc and a real registry: what the agent relies on
 * when a crash between a host mutation and the ledger append makes it run an operation again.
 * Every operation sent twice converges on one allocation, one container and one run of a step.
 */
class RuncRuntimeIT {

    private static final String NODE = "node-rt";
    private static Path dir;
    private static ProjectImage image;

    @BeforeAll
    static void pushImage() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "skipped: runc needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/runc")), "skipped: runc is missing (scripts/test installs it)");
        dir = Files.createTempDirectory("knotless-runtime-it");
        image = ProjectImage.push(Files.createDirectories(dir.resolve("registry")), "knotless-it/runtime-" + UUID.randomUUID().toString().substring(0, 8));
    }

    @AfterAll
    static void stop() throws Exception {
        if (image != null) {
            image.close();
            new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor();
        }
    }

    /** A runtime over a state directory, as a restarted agent would open it again. */
    private static RuncRuntime runtime(Path state) throws Exception {
        ImagePuller puller = new ImagePuller(new Registry(Registry.defaultClient(), Optional.empty()), state.resolve("images"),
                Platform.LINUX_AMD64, ImagePuller.Limits.DEFAULT);
        return new RuncRuntime(puller, new Runc("runc", state, Duration.ofSeconds(60)), new OciConfig(), NodeOptions.DEFAULT,
                Optional.empty(), state);
    }

    @Test
    void everyOperationSentTwiceConvergesAndAStepRunsOnce() throws Exception {
        Path state = dir.resolve("state-" + UUID.randomUUID().toString().substring(0, 8));
        String id = "rt-" + UUID.randomUUID().toString().substring(0, 8);
        Action.CreateAllocation create = new Action.CreateAllocation(NODE, id, image.reference(), 500, 256L << 20,
                Map.of("dev.knotless.runner", "rt"));
        RuncRuntime first = runtime(state);
        first.pullImage(new Action.PullImage(NODE, image.reference()));
        first.createAllocation(create);
        // A second agent over the same state (the restart after a crash) repeats the create and the start.
        RuncRuntime again = runtime(state);
        again.pullImage(new Action.PullImage(NODE, image.reference()));
        again.createAllocation(create);
        assertThat(again.startAllocation(new Action.StartAllocation(NODE, id))).isEqualTo(new Result.AllocationRunning(id));
        assertThat(again.startAllocation(new Action.StartAllocation(NODE, id))).isEqualTo(new Result.AllocationRunning(id));
        assertThat(runc(state, "list", "-q").lines().toList()).containsExactly(id);

        byte[] payload = ShellPayload.framed(Map.of(), List.of("/bin/sh", "-c", "echo ran >> /work/runs; echo out; exit 4"));
        Action.RunStep step = new Action.RunStep(NODE, id, 1, payload, 60_000, 0, 0);
        Output one = new Output();
        Result.StepExited exited = again.runStep(step, one);
        Output two = new Output();
        Result.StepExited repeated = again.runStep(new Action.RunStep(NODE, id, 1, payload, 60_000, 0, 0), two);
        assertThat(exited.exitCode()).isEqualTo(4);
        assertThat(repeated.exitCode()).isEqualTo(4);
        assertThat(one.stdout()).isEqualTo("out\n");
        assertThat(two.stdout()).isEqualTo("out\n");
        Output resumed = new Output();
        again.runStep(new Action.RunStep(NODE, id, 1, payload, 60_000, 2, 0), resumed);
        assertThat(resumed.stdout()).isEqualTo("t\n");
        assertThat(Files.readString(state.resolve("allocations").resolve(id).resolve("work/runs"))).isEqualTo("ran\n");

        byte[] other = ShellPayload.framed(Map.of(), List.of("/bin/sh", "-c", "echo else"));
        assertThatThrownBy(() -> again.runStep(new Action.RunStep(NODE, id, 1, other, 60_000, 0, 0), new Output()))
                .isInstanceOf(AllocationRuntime.RuntimeFailure.class).hasMessageContaining("was started with another payload");

        Action.CreateAllocation conflicting = new Action.CreateAllocation(NODE, id, image.reference(), 1000, 256L << 20,
                Map.of("dev.knotless.runner", "rt"));
        assertThatThrownBy(() -> again.createAllocation(conflicting))
                .isInstanceOf(AllocationRuntime.RuntimeFailure.class).hasMessageContaining("exists with another image, limits, labels, hardening or services");

        again.deleteAllocation(new Action.DeleteAllocation(NODE, id));
        again.deleteAllocation(new Action.DeleteAllocation(NODE, id));
        assertThat(runc(state, "list", "-q").lines().toList()).doesNotContain(id);
        assertThat(state.resolve("allocations").resolve(id)).doesNotExist();
        assertThat(again.listAllocations(new Action.ListAllocations(NODE)).allocations()).isEmpty();
    }

    @Test
    void anAllocationPastItsOwnDeadlineIsEndedAndRemovedWithNoRunnerAndARepeatedCreateMovesNoDeadline() throws Exception {
        Path state = dir.resolve("state-" + UUID.randomUUID().toString().substring(0, 8));
        String id = "dl-" + UUID.randomUUID().toString().substring(0, 8);
        String kept = "nd-" + UUID.randomUUID().toString().substring(0, 8);
        FakeClock clock = new FakeClock(java.time.Instant.parse("2026-12-01T00:00:00Z"));
        ImagePuller puller = new ImagePuller(new Registry(Registry.defaultClient(), Optional.empty()), state.resolve("images"),
                Platform.LINUX_AMD64, ImagePuller.Limits.DEFAULT);
        RuncRuntime runtime = new RuncRuntime(puller, new Runc("runc", state, Duration.ofSeconds(60)), new OciConfig(),
                NodeOptions.DEFAULT, Optional.empty(), state, clock);
        runtime.pullImage(new Action.PullImage(NODE, image.reference()));
        Action.CreateAllocation create = new Action.CreateAllocation(NODE, id, image.reference(), 500, 256L << 20, Map.of(),
                dev.knotless.node.protocol.ProcessHardening.DEFAULT, 10_000);
        runtime.createAllocation(create);
        runtime.startAllocation(new Action.StartAllocation(NODE, id));
        runtime.createAllocation(new Action.CreateAllocation(NODE, kept, image.reference(), 500, 256L << 20, Map.of()));
        runtime.startAllocation(new Action.StartAllocation(NODE, kept));
        byte[] payload = ShellPayload.framed(Map.of(), List.of("/bin/sh", "-c", "sleep 600 > /dev/null 2>&1 &"));
        assertThat(runtime.runStep(new Action.RunStep(NODE, id, 1, payload, 60_000, 0, 0), new Output()).exitCode()).isZero();

        clock.advance(Duration.ofSeconds(6));
        runtime.createAllocation(create); // a resend after 6 s: the deadline stays 10 s after the first create
        clock.advance(Duration.ofSeconds(3));
        assertThat(runtime.endOverdue(Duration.ofSeconds(1))).as("9 s into a 10 s lifetime").isEmpty();
        clock.advance(Duration.ofSeconds(1));
        long started = System.nanoTime();
        assertThat(runtime.endOverdue(Duration.ofSeconds(1))).containsExactly(id);
        System.out.printf("an allocation with a background sleeper was ended and removed in %d ms%n",
                (System.nanoTime() - started) / 1_000_000);
        assertThat(runc(state, "list", "-q").lines().toList()).containsExactly(kept);
        assertThat(state.resolve("allocations").resolve(id)).doesNotExist();
        assertThat(runtime.listAllocations(new Action.ListAllocations(NODE)).allocations())
                .extracting(Result.Allocation::allocation).containsExactly(kept);
        clock.advance(Duration.ofDays(1));
        assertThat(runtime.endOverdue(Duration.ofSeconds(1))).as("an allocation without a deadline").isEmpty();
        runtime.deleteAllocation(new Action.DeleteAllocation(NODE, kept));
        assertThat(runc(state, "list", "-q").lines().toList()).isEmpty();
    }

    @Test
    void anAllocationsRootIsAnOverlayWhoseWritesStayInItsUpperDirAndGoWithIt() throws Exception {
        Path state = dir.resolve("state-" + UUID.randomUUID().toString().substring(0, 8));
        String id = "ov-" + UUID.randomUUID().toString().substring(0, 8);
        RuncRuntime runtime = runtime(state);
        runtime.pullImage(new Action.PullImage(NODE, image.reference()));
        runtime.createAllocation(new Action.CreateAllocation(NODE, id, image.reference(), 500, 256L << 20, Map.of()));
        runtime.startAllocation(new Action.StartAllocation(NODE, id));
        Path allocation = state.resolve("allocations").resolve(id);
        Path rootfs = allocation.resolve("rootfs");
        assertThat(mountinfo()).as("the root filesystem is an overlay mount").contains(" " + rootfs.toRealPath() + " ");

        byte[] payload = ShellPayload.framed(Map.of(), List.of("/bin/sh", "-c", "echo mine > /etc/written-by-the-run"));
        assertThat(runtime.runStep(new Action.RunStep(NODE, id, 1, payload, 60_000, 0, 0), new Output()).exitCode()).isZero();
        assertThat(allocation.resolve("overlay/upper/etc/written-by-the-run")).hasContent("mine\n");
        try (var images = Files.walk(state.resolve("images"))) {
            assertThat(images.filter(p -> p.getFileName().toString().equals("written-by-the-run")).toList())
                    .as("the shared image is never written").isEmpty();
        }

        runtime.deleteAllocation(new Action.DeleteAllocation(NODE, id));
        assertThat(mountinfo()).doesNotContain(rootfs.toString());
        assertThat(allocation).doesNotExist();
    }

    private static String mountinfo() throws Exception {
        return Files.readString(Path.of("/proc/self/mountinfo"));
    }

    @Test
    void noFileTheAgentWritesForAStepHoldsItsSecretOrABareHashOfItsPayloadOrEnvelope() throws Exception {
        Path state = dir.resolve("state-" + UUID.randomUUID().toString().substring(0, 8));
        String id = "rs-" + UUID.randomUUID().toString().substring(0, 8);
        String secret = "hunter2-" + UUID.randomUUID().toString().substring(0, 4);
        ProtocolJson json = new ProtocolJson();
        KeyPair runner = Ed25519Keys.generate();
        RuncRuntime runtime = runtime(state);
        Agent agent;
        Signer signer = new Signer("runner-1", runner.getPrivate(), json);
        List<byte[]> frames = new java.util.ArrayList<>();
        try (Ledger ledger = Ledger.open(state.resolve("ledger"), MacKey.loadOrCreate(state.resolve("ledger.key")), json, Clock.systemUTC())) {
            agent = new Agent(NODE, Keyset.single("runner-1", runner.getPublic()), ledger, runtime,
                    new Signer("node-1", Ed25519Keys.generate().getPrivate(), json), json, Clock.systemUTC());
            byte[] payload = ShellPayload.framed(Map.of("SECRET", secret), List.of("/bin/sh", "-c", "test -n \"$SECRET\"; echo done"));
            for (Action action : List.<Action>of(new Action.PullImage(NODE, image.reference()),
                    new Action.CreateAllocation(NODE, id, image.reference(), 500, 256L << 20, Map.of()),
                    new Action.StartAllocation(NODE, id), new Action.RunStep(NODE, id, 1, payload, 60_000, 0, 0))) {
                long now = System.currentTimeMillis();
                byte[] frame = signer.sign(Envelope.of(NODE, now, now + 60_000, "k-" + UUID.randomUUID(), action));
                frames.add(frame);
                assertThat(agent.handle(frame)).isInstanceOf(Outcome.Executed.class);
            }
        }
        byte[] stepFrame = frames.getLast();
        byte[] stepPayload = SignedFrame.parse(SignedFrame.Kind.ACTION, stepFrame).payload();
        List<String> forbidden = List.of(secret, SignedFrame.sha256Hex(stepPayload), SignedFrame.sha256Hex(stepFrame),
                SignedFrame.sha256Hex(((Action.RunStep) json.read(stepPayload, Envelope.class).action()).payload()));
        List<Path> files;
        try (var walk = Files.walk(state)) {
            files = walk.filter(Files::isRegularFile).filter(f -> !f.startsWith(state.resolve("images"))).toList();
        }
        assertThat(files).contains(state.resolve("ledger"), state.resolve("allocations").resolve(id).resolve("step-output/1/payload.hmac"));
        for (Path file : files) {
            String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            for (String word : forbidden) {
                assertThat(text).as("%s holds %s", file, word.equals(secret) ? "the secret" : "a bare SHA-256").doesNotContain(word);
            }
        }
        runtime.deleteAllocation(new Action.DeleteAllocation(NODE, id));
        assertThat(state.resolve("allocations").resolve(id)).as("the step key goes with the allocation").doesNotExist();
    }

    private static String runc(Path state, String... args) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of("runc", "--root", state.resolve("runc").toString()));
        argv.addAll(List.of(args));
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    private static final class Output implements Attachment.StepOutput {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        @Override
        public void stdout(byte[] buffer, int offset, int length) {
            out.write(buffer, offset, length);
        }

        @Override
        public void stderr(byte[] buffer, int offset, int length) {}

        String stdout() {
            return out.toString(StandardCharsets.UTF_8);
        }
    }
}
