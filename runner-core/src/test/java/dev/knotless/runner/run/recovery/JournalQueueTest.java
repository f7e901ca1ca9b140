package dev.knotless.runner.run.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class JournalQueueTest {

    /** A journal whose writes wait until it is let go, as a slow disk or a busy database makes them. */
    static final class HeldJournal implements RunJournal {
        final CountDownLatch letGo = new CountDownLatch(1);
        final AtomicBoolean written = new AtomicBoolean();

        @Override
        public void record(String runId, RunProgress progress) {
            try {
                letGo.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            written.set(true);
        }

        @Override
        public Optional<RunProgress> read(String runId) {
            return Optional.empty();
        }
    }

    @Test
    void flushReturnsOnlyOnceTheStepsSentEntryIsWritten() throws Exception {
        HeldJournal journal = new HeldJournal();
        try (JournalQueue queue = new JournalQueue("r1", journal, Duration.ofMinutes(2))) {
            queue.offer(new RunProgress(1, 0, 0, 0, List.of()));
            Thread flushing = Thread.ofVirtual().start(queue::flush);
            assertThat(flushing.join(Duration.ofMillis(500))).as("flush waits while the entry is unwritten").isFalse();
            assertThat(journal.written).isFalse();
            journal.letGo.countDown();
            assertThat(flushing.join(Duration.ofSeconds(30))).as("flush returns once it is written").isTrue();
            assertThat(journal.written).isTrue();
        }
    }

    @Test
    void flushReturnsWhenTheJournalGaveUp() throws Exception {
        RunJournal broken = new RunJournal() {
            @Override
            public void record(String runId, RunProgress progress) throws java.io.IOException {
                throw new java.io.IOException("disk gone");
            }

            @Override
            public Optional<RunProgress> read(String runId) {
                return Optional.empty();
            }
        };
        try (JournalQueue queue = new JournalQueue("r2", broken, Duration.ofMinutes(2))) {
            queue.offer(new RunProgress(1, 0, 0, 0, List.of()));
            Thread flushing = Thread.ofVirtual().start(queue::flush);
            assertThat(flushing.join(Duration.ofSeconds(30))).as("a journal that gave up does not hold the step").isTrue();
        }
    }
}
