package dev.knotless.node.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.node.protocol.Action;
import dev.knotless.node.protocol.Ed25519Keys;
import dev.knotless.node.protocol.Envelope;
import dev.knotless.node.protocol.Outcome;
import dev.knotless.node.protocol.Reason;
import dev.knotless.node.protocol.SignedFrame;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every way an envelope can be wrong is rejected with its reason, and nothing reaches the runtime. */
class AgentRejectionTest {

    @TempDir
    Path dir;

    record Case(String name, Reason reason, Function<Fixture, byte[]> frame) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final long MINUTE = Duration.ofMinutes(1).toMillis();

    static Stream<Case> cases() {
        return Stream.of(
                new Case("flipped payload byte", Reason.BAD_SIGNATURE, f -> flip(f.signed("k1", Fixture.create("a1")), 20)),
                new Case("flipped signature byte", Reason.BAD_SIGNATURE, f -> {
                    byte[] frame = f.signed("k1", Fixture.create("a1"));
                    return flip(frame, frame.length - 1);
                }),
                new Case("flipped magic", Reason.MALFORMED_FRAME, f -> flip(f.signed("k1", Fixture.create("a1")), 0)),
                new Case("observation frame sent as an action", Reason.MALFORMED_FRAME, f -> SignedFrame.sign(
                        SignedFrame.Kind.OBSERVATION, "runner-1", f.runnerKey.getPrivate(), f.json.write(f.envelope("k1", Fixture.create("a1"))))),
                new Case("truncated frame", Reason.MALFORMED_FRAME, f -> {
                    byte[] frame = f.signed("k1", Fixture.create("a1"));
                    return Arrays.copyOf(frame, frame.length - 1);
                }),
                new Case("trailing byte", Reason.MALFORMED_FRAME, f -> {
                    byte[] frame = f.signed("k1", Fixture.create("a1"));
                    return Arrays.copyOf(frame, frame.length + 1);
                }),
                new Case("empty frame", Reason.MALFORMED_FRAME, f -> new byte[0]),
                new Case("null frame", Reason.MALFORMED_FRAME, f -> null),
                new Case("unknown key", Reason.UNKNOWN_KEY, f -> {
                    KeyPair other = Ed25519Keys.generate();
                    return SignedFrame.sign(SignedFrame.Kind.ACTION, "runner-2", other.getPrivate(),
                            f.json.write(f.envelope("k1", Fixture.create("a1"))));
                }),
                new Case("trusted key id, other key", Reason.BAD_SIGNATURE, f -> {
                    KeyPair other = Ed25519Keys.generate();
                    return SignedFrame.sign(SignedFrame.Kind.ACTION, "runner-1", other.getPrivate(),
                            f.json.write(f.envelope("k1", Fixture.create("a1"))));
                }),
                new Case("wrong node", Reason.WRONG_NODE, f -> {
                    long now = f.clock.millis();
                    return f.runner.sign(Envelope.of("node-b", now, now + MINUTE, "k1",
                            new Action.CreateAllocation("node-b", "a1", Fixture.IMAGE, 1000, 512L << 20, java.util.Map.of())));
                }),
                new Case("expired", Reason.EXPIRED, f -> {
                    long now = f.clock.millis();
                    return f.runner.sign(Envelope.of(Fixture.NODE, now - 4 * MINUTE, now - MINUTE, "k1", Fixture.create("a1")));
                }),
                new Case("window over five minutes", Reason.WINDOW_TOO_LONG, f -> {
                    long now = f.clock.millis();
                    return f.runner.sign(Envelope.of(Fixture.NODE, now, now + 5 * MINUTE + 1, "k1", Fixture.create("a1")));
                }),
                new Case("empty window", Reason.EMPTY_WINDOW, f -> {
                    long now = f.clock.millis();
                    return f.runner.sign(Envelope.of(Fixture.NODE, now, now, "k1", Fixture.create("a1")));
                }),
                new Case("issued in the future", Reason.NOT_YET_VALID, f -> {
                    long now = f.clock.millis();
                    return f.runner.sign(Envelope.of(Fixture.NODE, now + MINUTE, now + 2 * MINUTE, "k1", Fixture.create("a1")));
                }),
                new Case("action node differs from envelope node", Reason.ACTION_NODE_MISMATCH, f -> f.signed("k1",
                        new Action.CreateAllocation("node-b", "a1", Fixture.IMAGE, 1000, 512L << 20, java.util.Map.of()))),
                new Case("idempotency key replayed with another digest", Reason.IDEMPOTENCY_CONFLICT, f -> {
                    Outcome first = f.agent.handle(f.signed("k1", Fixture.create("a1")));
                    assertThat(first).isInstanceOf(Outcome.Executed.class);
                    f.runtime.calls.clear();
                    return f.signed("k1", Fixture.create("a2"));
                }),
                new Case("unknown envelope field", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace("\"version\":1", "\"version\":1,\"shell\":\"id\""))),
                new Case("unknown action field", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace("\"type\":\"create_allocation\"",
                        "\"type\":\"create_allocation\",\"command\":\"rm -rf /\""))),
                new Case("unknown action type", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace("create_allocation", "run_host_command"))),
                new Case("duplicate field", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace("\"version\":1", "\"version\":1,\"node\":\"node-a\""))),
                new Case("missing field", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace(",\"version\":1", ""))),
                new Case("null field", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace("\"idempotencyKey\":\"k1\"", "\"idempotencyKey\":null"))),
                new Case("string where a number belongs", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace("\"cpuMillis\":1000", "\"cpuMillis\":\"1000\""))),
                new Case("float where an integer belongs", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace("\"cpuMillis\":1000", "\"cpuMillis\":1000.5"))),
                new Case("trailing JSON", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f) + "{}")),
                new Case("not JSON", Reason.MALFORMED_PAYLOAD, f -> signJson(f, "create a1 please")),
                new Case("unsupported version", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace("\"version\":1", "\"version\":2"))),
                new Case("image by tag", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace(Fixture.IMAGE, "registry.example:5000/ci/build:latest"))),
                new Case("image digest too short", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace(Fixture.IMAGE, Fixture.IMAGE.substring(0, Fixture.IMAGE.length() - 1)))),
                new Case("allocation id with a slash", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace("\"allocation\":\"a1\"", "\"allocation\":\"../a1\""))),
                new Case("upload path climbing with ..", Reason.MALFORMED_PAYLOAD, f -> signJson(f, new String(f.json.write(
                        f.envelope("k1", new Action.Upload(Fixture.NODE, "a1", "/work/x", 1024))), StandardCharsets.UTF_8)
                        .replace("\"path\":\"/work/x\"", "\"path\":\"/work/../../etc\""))),
                new Case("relative download path", Reason.MALFORMED_PAYLOAD, f -> signJson(f, new String(f.json.write(
                        f.envelope("k1", new Action.Download(Fixture.NODE, "a1", "/outputs"))), StandardCharsets.UTF_8)
                        .replace("\"path\":\"/outputs\"", "\"path\":\"outputs\""))),
                new Case("label with a newline", Reason.MALFORMED_PAYLOAD, f -> signJson(f, valid(f).replace("\"runner\":\"r1\"", "\"runner\":\"r1\\nx\""))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void rejectedWithItsReasonAndNothingExecuted(Case c) throws Exception {
        Fixture f = new Fixture(dir);
        byte[] frame = c.frame().apply(f);
        int ledgerBefore = f.ledger.size();

        Outcome outcome = f.agent.handle(frame);

        assertThat(outcome).isInstanceOfSatisfying(Outcome.Rejected.class, r -> {
            assertThat(r.reason()).as(r.detail()).isEqualTo(c.reason());
            assertThat(r.detail()).isNotBlank().doesNotContain("\n");
        });
        assertThat(f.runtime.calls).as("runtime calls").isEmpty();
        assertThat(f.ledger.size()).isEqualTo(ledgerBefore);
    }

    @Test
    void aWindowOfExactlyFiveMinutesAtTheEdgeOfTheSkewIsAccepted() throws Exception {
        Fixture f = new Fixture(dir);
        long now = f.clock.millis();
        long issued = now - Duration.ofMinutes(5).toMillis() + 1;
        byte[] frame = f.runner.sign(Envelope.of(Fixture.NODE, issued, issued + Duration.ofMinutes(5).toMillis(), "k1", Fixture.create("a1")));

        assertThat(f.agent.handle(frame)).isInstanceOf(Outcome.Executed.class);
        assertThat(f.runtime.calls).hasSize(1);
    }

    @Test
    void everySingleBitFlipAnywhereIsRejectedBeforeDecoding() throws Exception {
        Fixture f = new Fixture(dir);
        byte[] valid = f.signed("k1", new Action.RunStep(Fixture.NODE, "a1", 3, "make test\n".getBytes(StandardCharsets.UTF_8), 60_000, 0, 0));
        int tried = 0;
        for (int i = 0; i < valid.length; i++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] mutated = valid.clone();
                mutated[i] ^= (byte) (1 << bit);
                Outcome outcome = f.agent.handle(mutated);
                int at = i;
                int b = bit;
                assertThat(outcome).as("byte %d bit %d", at, b).isInstanceOfSatisfying(Outcome.Rejected.class, r ->
                        // Never MALFORMED_PAYLOAD: a changed payload fails the signature before any JSON is read.
                        assertThat(r.reason()).as("byte %d bit %d: %s", at, b, r.detail())
                                .isIn(Reason.MALFORMED_FRAME, Reason.UNKNOWN_KEY, Reason.BAD_SIGNATURE));
                tried++;
            }
        }
        assertThat(tried).isEqualTo(valid.length * 8);
        assertThat(f.runtime.calls).isEmpty();

        // The unmutated frame is accepted, so the rejections above were caused by the flips alone.
        assertThat(f.agent.handle(valid)).isInstanceOf(Outcome.Executed.class);
        assertThat(f.runtime.calls).hasSize(1);
    }

    @Test
    void randomMutationsAreAllRejected() throws Exception {
        long seed = Long.getLong("fuzz.seed", System.nanoTime());
        Random random = new Random(seed);
        Fixture f = new Fixture(dir);
        byte[] valid = f.signed("k1", new Action.Upload(Fixture.NODE, "a1", "/work/src/main", 300));
        for (int round = 0; round < 3000; round++) {
            byte[] mutated = mutate(valid, random);
            if (Arrays.equals(mutated, valid)) {
                continue;
            }
            Outcome outcome = f.agent.handle(mutated);
            assertThat(outcome).as("seed %d (rerun with -Dfuzz.seed=%d), round %d", seed, seed, round)
                    .isInstanceOfSatisfying(Outcome.Rejected.class, r -> assertThat(r.reason())
                            .isIn(Reason.MALFORMED_FRAME, Reason.UNKNOWN_KEY, Reason.BAD_SIGNATURE));
        }
        assertThat(f.runtime.calls).as("seed %d", seed).isEmpty();
        assertThat(f.agent.handle(valid)).isInstanceOf(Outcome.Executed.class);
    }

    private static byte[] mutate(byte[] valid, Random random) {
        byte[] out = valid.clone();
        switch (random.nextInt(4)) {
            case 0 -> {
                int n = 1 + random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    out[random.nextInt(out.length)] = (byte) random.nextInt(256);
                }
            }
            case 1 -> out = Arrays.copyOf(valid, random.nextInt(valid.length));
            case 2 -> {
                int at = random.nextInt(valid.length + 1);
                byte[] longer = new byte[valid.length + 1];
                System.arraycopy(valid, 0, longer, 0, at);
                longer[at] = (byte) random.nextInt(256);
                System.arraycopy(valid, at, longer, at + 1, valid.length - at);
                out = longer;
            }
            default -> {
                int at = random.nextInt(valid.length);
                byte[] shorter = new byte[valid.length - 1];
                System.arraycopy(valid, 0, shorter, 0, at);
                System.arraycopy(valid, at + 1, shorter, at, valid.length - at - 1);
                out = shorter;
            }
        }
        return out;
    }

    private static String valid(Fixture f) {
        return new String(f.json.write(f.envelope("k1", Fixture.create("a1"))), StandardCharsets.UTF_8);
    }

    private static byte[] signJson(Fixture f, String json) {
        return SignedFrame.sign(SignedFrame.Kind.ACTION, "runner-1", f.runnerKey.getPrivate(), json.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] flip(byte[] frame, int at) {
        byte[] out = frame.clone();
        out[at] ^= 0x40;
        return out;
    }

}
