package dev.knotless.runner.run.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.CheckStore;
import dev.knotless.checks.CheckSubject;
import dev.knotless.checks.Event;
import dev.knotless.checks.ExecutorName;
import dev.knotless.forge.CheckPublisher;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the one check recorder tells its publishers, and that a failing publisher costs a log line only. */
class CheckRecorderTest {

    static final Instant T = Instant.parse("2026-01-02T03:04:05Z");
    static final CheckSubject SUBJECT = new CheckSubject("r-1", "acme/web", "0123456789abcdef0123456789abcdef01234567",
            "refs/heads/main", "ci", Event.PUSH, "runner-1", ExecutorName.of("docker"));

    @TempDir Path dir;
    final List<String> told = new CopyOnWriteArrayList<>();
    final List<String> log = new CopyOnWriteArrayList<>();

    /** A publisher that notes what it hears as "name:started:status" or "name:publish:status". */
    CheckPublisher noting(String name) {
        return new CheckPublisher() {
            @Override
            public void publish(Check check) {
                told.add(name + ":publish:" + check.status().wireName());
            }

            @Override
            public void started(Check check) {
                told.add(name + ":started:" + check.status().wireName());
            }
        };
    }

    static final CheckPublisher FAILING = new CheckPublisher() {
        @Override
        public void publish(Check check) throws IOException {
            throw new IOException("forge down");
        }

        @Override
        public void started(Check check) throws IOException {
            throw new IOException("forge down");
        }
    };

    @Test
    void aRunningCheckReachesThePublishersAsStartedAndAFinalOneAsPublished() throws Exception {
        CheckRecorder recorder = new CheckRecorder(new CheckStore(dir), CheckRows.NONE,
                CheckPublisher.all(List.of(noting("a"), noting("b"))), log::add);
        Check running = Check.running(SUBJECT, T, null);
        recorder.running(running);
        recorder.finished(running.finished(CheckStatus.SUCCESS, null, T.plusSeconds(3), List.of(), List.of()));
        assertThat(told).containsExactly("a:started:running", "b:started:running", "a:publish:success", "b:publish:success");
        assertThat(new CheckStore(dir).load("r-1")).get().extracting(Check::status).isEqualTo(CheckStatus.SUCCESS);
        assertThat(log).isEmpty();
    }

    @Test
    void aFailingPublisherNeitherStopsTheOthersNorTheRecordAndIsOneLogLine() throws Exception {
        CheckPublisher all = CheckPublisher.all(List.of(FAILING, noting("b")));
        CheckRecorder recorder = new CheckRecorder(new CheckStore(dir), CheckRows.NONE, all, log::add);
        recorder.running(Check.running(SUBJECT, T, null));
        assertThat(told).containsExactly("b:started:running");
        assertThat(log).containsExactly("could not publish check r-1: forge down");
        assertThat(new CheckStore(dir).load("r-1")).isPresent();
        assertThatThrownBy(() -> all.publish(Check.running(SUBJECT, T, null))).hasMessage("forge down");
        assertThat(told).as("the second heard it though the first failed").hasSize(2);
    }
}
