package dev.knotless.executor.toolkit;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.ServiceNotReady;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.Session;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ServiceReadinessTest {

    /** A session whose probe prints the next of {@code answers} (the last one again and again), and a service log. */
    private static final class ProbedSession implements Session {
        final Deque<String> answers;
        final AtomicLong clock;
        int probes;

        ProbedSession(AtomicLong clock, String... answers) {
            this.clock = clock;
            this.answers = new ArrayDeque<>(List.of(answers));
        }

        @Override
        public StepOutcome run(StepPayload step, OutputSink output, StopSignal signal) {
            assertThat(step.kind()).isEqualTo(StepPayload.Kind.PROBE);
            probes++;
            clock.addAndGet(Duration.ofSeconds(1).toNanos()); // each look takes a second of the fake clock
            String answer = answers.size() > 1 ? answers.poll() : answers.peek();
            byte[] bytes = answer.getBytes(StandardCharsets.US_ASCII);
            output.write(OutputSink.Stream.STDOUT, bytes, 0, bytes.length);
            return new StepOutcome.Exited(0);
        }

        @Override
        public void serviceLog(String service, long maxBytes, OutputSink output, StopSignal signal) {
            byte[] bytes = ("starting " + service + "\n").getBytes(StandardCharsets.UTF_8);
            output.write(OutputSink.Stream.STDERR, bytes, 0, bytes.length);
        }

        @Override public void upload(String dir, TarSource tar, StopSignal signal) {}
        @Override public void download(String dir, TarSink sink, StopSignal signal) {}
        @Override public String describe() { return "probed"; }
        @Override public void close() {}
    }

    private static RunSpec spec(ServiceSpec... services) {
        return RunSpec.builder("r", "run-1", "img").services(List.of(services)).build();
    }

    private static ServiceSpec service(String name, Duration wait, Integer... ports) {
        return new ServiceSpec(name, "img", Map.of(), List.of(), List.of(ports), wait);
    }

    @Test
    void returnsOnceEveryPortOfEveryServiceListens() throws Exception {
        AtomicLong clock = new AtomicLong();
        // 0x1F90 = 8080, 0x1538 = 5432: 8080 first, both on the third look
        ProbedSession session = new ProbedSession(clock, "", "1F90\n", "1F90\n1538\n0016\n");
        new ServiceReadiness(clock::get, Duration.ofMillis(1)).await(session,
                spec(service("web", Duration.ofSeconds(30), 8080), service("db", Duration.ofSeconds(30), 5432)),
                ServiceReadiness.Watch.NOTHING, StopSignal.none());
        assertThat(session.probes).isEqualTo(3);
    }

    @Test
    void aServiceWhosePortNeverListensFailsNamingItAndThePortAtItsWaitWithItsLog() {
        AtomicLong clock = new AtomicLong();
        ProbedSession session = new ProbedSession(clock, "1F90\n");
        assertThatThrownBy(() -> new ServiceReadiness(clock::get, Duration.ofMillis(1)).await(session,
                spec(service("web", Duration.ofSeconds(30), 8080), service("db", Duration.ofSeconds(3), 5432)),
                ServiceReadiness.Watch.NOTHING, StopSignal.none()))
                .isInstanceOfSatisfying(ServiceNotReady.class, e -> {
                    assertThat(e.failure()).isEqualTo(new Failure(Failure.Kind.SERVICE,
                            "service 'db' did not accept a connection on port 5432 within 3s"));
                    assertThat(e.service()).isEqualTo("db");
                    assertThat(new String(e.log(), StandardCharsets.UTF_8)).isEqualTo("starting db\n");
                });
        assertThat(session.probes).as("looked until the wait had passed, not longer").isEqualTo(3);
    }

    @Test
    void aServiceTheExecutorSeesEndedFailsAtOnce() {
        AtomicLong clock = new AtomicLong();
        ProbedSession session = new ProbedSession(clock, "");
        assertThatThrownBy(() -> new ServiceReadiness(clock::get, Duration.ofMillis(1)).await(session,
                spec(service("db", Duration.ofSeconds(60), 5432)),
                s -> Optional.of("exited with 1"), StopSignal.none()))
                .isInstanceOf(ServiceNotReady.class)
                .hasMessage("service 'db' ended before it accepted a connection on port 5432: exited with 1");
        assertThat(session.probes).isEqualTo(1);
    }

    @Test
    void servicesWithoutPortsAreNotProbed() throws Exception {
        AtomicLong clock = new AtomicLong();
        ProbedSession session = new ProbedSession(clock, "");
        new ServiceReadiness(clock::get, Duration.ofMillis(1)).await(session, spec(service("cache", Duration.ofSeconds(1))),
                ServiceReadiness.Watch.NOTHING, StopSignal.none());
        assertThat(session.probes).isZero();
    }

    @Test
    void aFiredSignalStopsTheWait() {
        AtomicLong clock = new AtomicLong();
        StopSignal signal = StopSignal.none().child();
        signal.stop(StopSignal.Reason.CANCELLED);
        assertThatThrownBy(() -> new ServiceReadiness(clock::get, Duration.ofMillis(1)).await(new ProbedSession(clock, ""),
                spec(service("db", Duration.ofSeconds(60), 5432)), ServiceReadiness.Watch.NOTHING, signal))
                .isInstanceOfSatisfying(ExecutorException.class,
                        e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.STOPPED));
    }

    @Test
    void theProbeReadsHexPortsAndIgnoresAnythingElse() {
        assertThat(ServiceReadiness.ports("1F90\n0016\nzz\n12345\n\n")).containsExactlyInAnyOrder(8080, 22);
    }
}
