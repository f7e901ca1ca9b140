package dev.knotless.node.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Keyset;
import dev.knotless.node.protocol.ObservationVerifier;
import dev.knotless.node.protocol.ObservationVerifier.Verification;
import dev.knotless.node.protocol.Outcome;
import dev.knotless.node.protocol.Reason;
import dev.knotless.node.protocol.Result;
import dev.knotless.node.protocol.SignedFrame;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentTest {

    @TempDir
    Path dir;

    @Test
    void everyActionReachesItsOneRuntimeOperationWithItsResult() throws Exception {
        Fixture f = new Fixture(dir);
        List<Action> actions = List.of(
                new Action.PullImage(Fixture.NODE, Fixture.IMAGE),
                Fixture.create("a1"),
                new Action.AttachNetwork(Fixture.NODE, "a1", "isolated"),
                new Action.StartAllocation(Fixture.NODE, "a1"),
                new Action.Upload(Fixture.NODE, "a1", "/work/src", 1024),
                new Action.RunStep(Fixture.NODE, "a1", 1, "make\n".getBytes(StandardCharsets.UTF_8), 1000, 0, 0),
                new Action.Download(Fixture.NODE, "a1", "/outputs/reports"),
                new Action.StopAllocation(Fixture.NODE, "a1", 5000, false),
                new Action.DeleteAllocation(Fixture.NODE, "a1"),
                new Action.ListAllocations(Fixture.NODE));
        for (int i = 0; i < actions.size(); i++) {
            assertThat(f.agent.handle(f.signed("op-" + i, actions.get(i)))).isInstanceOf(Outcome.Executed.class);
        }
        assertThat(f.runtime.calls).hasSize(actions.size());
        for (int i = 0; i < actions.size(); i++) {
            // Records holding byte arrays compare by reference, so compare their canonical JSON.
            assertThat(f.json.write(f.runtime.calls.get(i))).isEqualTo(f.json.write(actions.get(i)));
        }
        assertThat(f.ledger.size()).isEqualTo(actions.size());
    }

    @Test
    void theSameEnvelopeAgainIsAnsweredFromTheLedgerWithoutRunningAgainEvenAfterARestart() throws Exception {
        Fixture f = new Fixture(dir);
        byte[] frame = f.signed("step-1", new Action.RunStep(Fixture.NODE, "a1", 1, "exit 3".getBytes(StandardCharsets.UTF_8), 1000, 0, 0));

        Outcome first = f.agent.handle(frame);
        Outcome again = f.agent.handle(frame);
        f.restart();
        Outcome afterRestart = f.agent.handle(frame);

        assertThat(first).isInstanceOf(Outcome.Executed.class);
        Result recorded = ((Outcome.Executed) first).result();
        assertThat(again).isInstanceOfSatisfying(Outcome.Replayed.class, r -> assertThat(r.result()).isEqualTo(recorded));
        assertThat(afterRestart).isInstanceOfSatisfying(Outcome.Replayed.class, r -> assertThat(r.result()).isEqualTo(recorded));
        assertThat(f.runtime.calls).hasSize(1);
        assertThat(f.ledger.replay().entries()).isEqualTo(1);
    }

    @Test
    void aKeyRotatedInIsTrustedAndARotatedOutKeyIsNot() throws Exception {
        Fixture f = new Fixture(dir);
        var newKey = dev.knotless.node.protocol.Ed25519Keys.generate();
        var both = new Keyset(java.util.Map.of("runner-1", f.runnerKey.getPublic(), "runner-2", newKey.getPublic()));
        var onlyNew = Keyset.single("runner-2", newKey.getPublic());
        var signer2 = new dev.knotless.node.protocol.Signer("runner-2", newKey.getPrivate(), f.json);

        Agent during = new Agent(Fixture.NODE, both, f.ledger, f.runtime, f.nodeIdentity, f.json, f.clock);
        assertThat(during.handle(f.signed("old", Fixture.create("a1")))).isInstanceOf(Outcome.Executed.class);
        assertThat(during.handle(signer2.sign(f.envelope("new", Fixture.create("a2"))))).isInstanceOf(Outcome.Executed.class);

        Agent after = new Agent(Fixture.NODE, onlyNew, f.ledger, f.runtime, f.nodeIdentity, f.json, f.clock);
        assertThat(after.handle(f.signed("old-2", Fixture.create("a3"))))
                .isInstanceOfSatisfying(Outcome.Rejected.class, r -> assertThat(r.reason()).isEqualTo(Reason.UNKNOWN_KEY));
        assertThat(f.runtime.calls).hasSize(2);
    }

    @Test
    void answersAreSignedObservationsTheRunnerBelievesOnlyForTheFrameItSent() throws Exception {
        Fixture f = new Fixture(dir);
        byte[] sent = f.signed("k1", new Action.StartAllocation(Fixture.NODE, "a1"));
        byte[] other = f.signed("k2", new Action.StartAllocation(Fixture.NODE, "a2"));
        ObservationVerifier verifier = new ObservationVerifier(Fixture.NODE,
                Keyset.single("node-a-id", f.nodeKey.getPublic()), f.json, f.clock);

        byte[] answer = f.agent.answer(sent);

        assertThat(verifier.verifyAnswer(answer, sent)).isInstanceOfSatisfying(Verification.Believed.class, b ->
                assertThat(b.observation().report()).isInstanceOfSatisfying(Outcome.Executed.class, e ->
                        assertThat(e.result()).isEqualTo(new Result.AllocationRunning("a1"))));
        assertThat(verifier.verifyAnswer(answer, other)).isInstanceOfSatisfying(Verification.Refused.class, r ->
                assertThat(r.reason()).contains("not the one sent"));
        // Rejections are signed answers too.
        byte[] bad = f.agent.answer(new byte[] {1, 2, 3});
        assertThat(verifier.verifyAnswer(bad, new byte[] {1, 2, 3})).isInstanceOfSatisfying(Verification.Believed.class, b ->
                assertThat(b.observation().report()).isInstanceOfSatisfying(Outcome.Rejected.class, r ->
                        assertThat(r.reason()).isEqualTo(Reason.MALFORMED_FRAME)));
        assertThat(SignedFrame.sha256Hex(sent)).isEqualTo(((Outcome) ((Verification.Believed) verifier.verify(answer))
                .observation().report()).inReplyTo());
    }

    @Test
    void aRuntimeFailureIsReportedAndNotRecordedSoTheSameEnvelopeMayRunAgain() throws Exception {
        Fixture f = new Fixture(dir);
        f.runtime.failNext = "registry unreachable";
        Agent agent = f.agent;
        byte[] frame = f.signed("k1", new Action.PullImage(Fixture.NODE, Fixture.IMAGE));

        assertThat(agent.handle(frame)).isInstanceOfSatisfying(Outcome.Failed.class, r ->
                assertThat(r.message()).isEqualTo("registry unreachable"));
        assertThat(f.ledger.find("k1")).isEmpty();
        assertThat(agent.handle(frame)).isInstanceOf(Outcome.Executed.class);
        assertThat(f.runtime.calls).hasSize(2);
    }

    @Test
    void aSecondCopyWhileTheFirstIsRunningIsRefusedAsInProgress() throws Exception {
        Fixture f = new Fixture(dir);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        RecordingRuntime blocking = new RecordingRuntime() {
            @Override
            public synchronized Result.StepExited runStep(Action.RunStep action, Attachment.StepOutput output) throws RuntimeFailure {
                entered.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.runStep(action, output);
            }
        };
        Agent agent = new Agent(Fixture.NODE, f.trusted, f.ledger, blocking, f.nodeIdentity, f.json, f.clock);
        byte[] frame = f.signed("k1", new Action.RunStep(Fixture.NODE, "a1", 1, new byte[0], 1000, 0, 0));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Outcome> first = pool.submit(() -> agent.handle(frame));
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();

            assertThat(agent.handle(frame)).isInstanceOfSatisfying(Outcome.Rejected.class, r ->
                    assertThat(r.reason()).isEqualTo(Reason.IN_PROGRESS));
            release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOf(Outcome.Executed.class);
            assertThat(agent.handle(frame)).isInstanceOf(Outcome.Replayed.class);
            assertThat(blocking.count()).isEqualTo(1);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void anEnvelopeThatExpiredIsRefusedEvenIfItsKeyIsRecorded() throws Exception {
        Fixture f = new Fixture(dir);
        byte[] frame = f.signed("k1", Fixture.create("a1"));
        assertThat(f.agent.handle(frame)).isInstanceOf(Outcome.Executed.class);

        f.clock.advance(Duration.ofMinutes(3));

        assertThat(f.agent.handle(frame)).isInstanceOfSatisfying(Outcome.Rejected.class, r ->
                assertThat(r.reason()).isEqualTo(Reason.EXPIRED));
        assertThat(f.runtime.calls).hasSize(1);
    }
}
