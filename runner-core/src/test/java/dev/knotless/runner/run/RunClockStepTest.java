package dev.knotless.runner.run;

import static dev.knotless.testkit.CraftedTars.file;
import static dev.knotless.testkit.CraftedTars.tar;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Output;
import dev.knotless.executor.RunLayout;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.testkit.FakeClock;
import dev.knotless.testkit.FakeSession;
import dev.knotless.testkit.FakeTicker;
import dev.knotless.testkit.RecordingExecutor;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wall clock stepped by minutes, forwards and back, while the monotonic ticker advances as time
 * really passes: the outputs' deadline (12 kill graces, 60 s by default) goes by the ticker alone,
 * firing neither early nor late, and the check's instants are the wall clock's.
 */
class RunClockStepTest {

    private static final String ONE_STEP = "steps:\n  - {name: build, run: make}\n";
    private static final Duration OUTPUTS_DEADLINE = RunLimits.DEFAULT.killGrace().multipliedBy(12);

    @TempDir Path dir;
    final FakeClock wall = new FakeClock(Instant.parse("2026-06-01T12:00:00Z"));
    final FakeTicker ticker = new FakeTicker();
    RunFixture fixture;
    FakeSession session;
    RecordingExecutor executor;

    @BeforeEach
    void setUp() {
        fixture = new RunFixture(dir);
        fixture.clock = wall;
        session = new FakeSession("fake-1");
        executor = new RecordingExecutor("fake").startsWith(session);
    }

    @Test
    void outputsArriveWhileTheWallClockJumpsAheadByMinutes() {
        AtomicInteger reads = new AtomicInteger();
        session.downloadsFrom(RunLayout.OUTPUTS, () -> stepping(tar(file("report.txt", 4096)), reads, Duration.ofSeconds(1),
                Duration.ofMinutes(10), Duration.ofMinutes(-3)));

        Check check = fixture.run(executor, ticker).execute(fixture.request(ONE_STEP), new Cancellation());

        assertThat(check.status()).as(check.reason()).isEqualTo(CheckStatus.SUCCESS);
        assertThat(check.outputs()).extracting(Output::name).containsExactly("report.txt");
        assertThat(Duration.ofSeconds(reads.get())).as("the ticker stayed inside the deadline").isLessThan(OUTPUTS_DEADLINE);
        assertThat(Duration.between(wall.instant(), Instant.parse("2026-06-01T12:00:00Z")).abs())
                .as("the wall clock moved far past the deadline meanwhile").isGreaterThan(OUTPUTS_DEADLINE.multipliedBy(10));
        assertThat(check.finishedAt()).as("a check shows wall time").isEqualTo(wall.instant());
    }

    @Test
    void theOutputsDeadlineFiresAtTheTickerThoughTheWallClockJumpsBack() {
        AtomicInteger reads = new AtomicInteger();
        session.downloadsFrom(RunLayout.OUTPUTS, () -> stepping(tar(file("big.bin", 64 * 1024)), reads, Duration.ofSeconds(5),
                Duration.ofMinutes(-10), Duration.ofMinutes(-10)));

        Check check = fixture.run(executor, ticker).execute(fixture.request(ONE_STEP), new Cancellation());

        assertThat(check.status()).isEqualTo(CheckStatus.FAILURE);
        assertThat(check.reason()).startsWith("outputs refused: ").contains("outputs did not finish before its deadline");
        assertThat(reads.get()).as("the read that took the ticker to the deadline, not one before or after")
                .isEqualTo((int) (OUTPUTS_DEADLINE.toSeconds() / 5));
    }

    /**
     * {@code tar} in 512-byte reads; before each, the ticker advances by {@code tick} and the wall
     * clock steps by {@code odd} or {@code even}, by turns.
     */
    private InputStream stepping(byte[] tar, AtomicInteger reads, Duration tick, Duration odd, Duration even) {
        ByteArrayInputStream bytes = new ByteArrayInputStream(tar);
        return new InputStream() {
            @Override
            public int read() {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (bytes.available() == 0) {
                    return -1;
                }
                int n = reads.incrementAndGet();
                ticker.advance(tick);
                wall.advance(n % 2 == 1 ? odd : even);
                return bytes.read(b, off, Math.min(len, 512));
            }
        };
    }
}
