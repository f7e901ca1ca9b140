package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.ServiceNotReady;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import dev.knotless.executor.Trust;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The contract's services ({@link RunSpec#services()}): started with the run, reachable from a
 * step by name on every executor, waited for before {@code start} returns, their output readable,
 * and gone with the run, its sweep, or a start they failed. The service is the test image's
 * BusyBox {@code httpd}, serving a page made from the service's own variable.
 * Part of {@link ExecutorContract}, which every executor's integration test extends.
 */
public interface ServiceContract {

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    /** {@code httpd} on 8080 serving {@code index.html} with {@code $GREETING}, after a line on stdout. */
    static ServiceSpec web(String image, String greeting) {
        return new ServiceSpec("web", image, Map.of("GREETING", greeting),
                List.of("/bin/sh", "-c", "mkdir -p /tmp/www && echo \"$GREETING\" > /tmp/www/index.html"
                        + " && echo web is serving && exec httpd -f -p 8080 -h /tmp/www"),
                List.of(8080), Duration.ofSeconds(30));
    }

    @Test
    default void aStepReachesAServiceByItsNameOnItsPortAndItsLogIsReadable() throws Exception {
        RunSpec spec = contract().spec().services(List.of(web(contract().image(), "hello from web"))).build();
        Session s = contract().open(spec);
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(ContractSupport.sh("fetch", "wget -qO- http://web:8080/index.html"), out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).isEqualTo("hello from web\n");

        ByteArrayOutputStream log = new ByteArrayOutputStream();
        s.serviceLog("web", 64 * 1024, (stream, buffer, offset, length) -> log.write(buffer, offset, length), StopSignal.none());
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("web is serving");
    }

    /**
     * An untrusted run's service is reached the same way, and the run still has what the executor
     * declares for untrusted runs: services share the run's namespace, they add no interface.
     */
    @Test
    default void anUntrustedRunReachesItsServiceAndGainsNoInterface() throws Exception {
        RunSpec spec = contract().spec().trust(Trust.UNTRUSTED).services(List.of(web(contract().image(), "untrusted"))).build();
        Session s = contract().open(spec);
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(ContractSupport.sh("fetch",
                "wget -qO- http://web:8080/index.html; ls /sys/class/net"), out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).startsWith("untrusted\n");
        if (contract().executor().untrustedNetwork().enforcement() == dev.knotless.executor.UntrustedNetwork.Enforcement.NO_INTERFACE) {
            assertThat(out.stdout().lines().skip(1).toList()).containsExactly("lo");
        }
    }

    /** Set to {@code true} to measure what a service adds to a run's start ({@link #whatAServiceAddsToTheStart}). */
    String MEASURE = "knotless.measure.services";

    /**
     * Not a check: how long from {@code start} to the end of a first step ({@code true}), five runs
     * without a service and five with the {@link #web} service, alternating, medians printed
     * (docs/design/services.md). Runs only when {@value #MEASURE} is {@code true}.
     */
    @Test
    @org.junit.jupiter.api.condition.EnabledIfSystemProperty(named = MEASURE, matches = "true")
    default void whatAServiceAddsToTheStart() throws Exception {
        List<Long> without = new java.util.ArrayList<>();
        List<Long> with = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            for (boolean service : new boolean[] {false, true}) {
                RunSpec spec = contract().spec().services(service ? List.of(web(contract().image(), "timed")) : List.of()).build();
                long started = System.nanoTime();
                Session s = contract().executor().start(spec, StopSignal.none());
                try {
                    assertThat(s.run(ContractSupport.sh("first", "true"), OutputSink.DISCARD, StopSignal.none()))
                            .isEqualTo(new StepOutcome.Exited(0));
                    if (i > 0) { // the first pair warms images and caches up
                        (service ? with : without).add((System.nanoTime() - started) / 1_000_000);
                    }
                } finally {
                    s.close();
                }
            }
        }
        System.out.printf("%s: start to first step, ms: without a service %s (median %d), with one %s (median %d)%n",
                contract().executor().name(), without, median(without), with, median(with));
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    @Test
    default void aServiceThatNeverListensEndsTheStartNamingItWithinItsWaitAndLeavesNothing() throws Exception {
        ServiceSpec mute = new ServiceSpec("mute", contract().image(), Map.of(),
                List.of("/bin/sh", "-c", "echo mute is up; exec sleep 600"), List.of(8080), Duration.ofSeconds(3));
        RunSpec spec = contract().spec().services(List.of(mute)).build();
        long started = System.nanoTime();
        assertThatThrownBy(() -> contract().executor().start(spec, StopSignal.none()))
                .isInstanceOfSatisfying(ServiceNotReady.class, e -> {
                    assertThat(e.failure()).isEqualTo(new Failure(Failure.Kind.SERVICE,
                            "service 'mute' did not accept a connection on port 8080 within 3s"));
                    assertThat(new String(e.log(), StandardCharsets.UTF_8)).contains("mute is up");
                });
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        System.out.printf("%s: a service that never listens ended the start after %d ms (wait 3s)%n",
                contract().executor().name(), took.toMillis());
        assertThat(contract().leftovers()).as("what the failed start left").isEmpty();
    }

    @Test
    default void aServiceWhoseImageDoesNotExistFailsNamingItAndLeavesNothing() throws Exception {
        String missing = TestImages.MISSING;
        ServiceSpec ghost = new ServiceSpec("ghost", missing, Map.of(), List.of(), List.of(), Duration.ofSeconds(5));
        RunSpec spec = contract().spec().services(List.of(ghost)).build();
        assertThatThrownBy(() -> contract().executor().start(spec, StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.SERVICE);
                    assertThat(e.failure().reason()).startsWith("service 'ghost': ").contains(missing);
                });
        assertThat(contract().leftovers()).isEmpty();
    }

    @Test
    default void anAbandonedRunsServicesGoWithItsSweepAndItsCloseLeavesNothing() throws Exception {
        RunSpec abandoned = contract().spec().services(List.of(web(contract().image(), "abandoned"))).build();
        contract().executor().start(abandoned, StopSignal.none()); // never closed: as if the runner crashed
        SweepReport swept = contract().executor().sweep(contract().runnerId(), Set.of());
        assertThat(swept.failed()).isEmpty();
        assertThat(contract().leftovers()).as("after the sweep").isEmpty();

        Session closed = contract().executor().start(contract().spec().services(List.of(web(contract().image(), "closed"))).build(),
                StopSignal.none());
        closed.serviceLog("web", 1024, OutputSink.DISCARD, StopSignal.none());
        closed.close();
        assertThat(contract().leftovers()).as("after close").isEmpty();
    }
}
