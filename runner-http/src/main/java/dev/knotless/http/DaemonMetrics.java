package dev.knotless.http;

import dev.knotless.checks.Check;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.Executor;
import dev.knotless.executor.Failure;
import dev.knotless.forge.Forge;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.runner.state.StateStore;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's metrics, in one Micrometer registry scraped as Prometheus text at {@code /metrics}.
 *
 * <p>Counted where the daemon sees things happen, by decorating what it is handed: the forge's
 * publisher (every final check passes it once, so runs by status), the executor (sweeps, session
 * clean-ups, failures by kind) and a {@link RunListener} (step durations). Queue depth and running
 * runs are read from the state store at scrape time, so they are right after a restart too; so
 * are the per-node gauges, from the node fleet ({@link NodeMetrics}).
 */
public final class DaemonMetrics {

    private static final Logger LOG = LoggerFactory.getLogger(DaemonMetrics.class);

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final @Nullable NodeFleet nodes;
    /** Whether the last scrape could not read the fleet: a failing read is logged once, not every scrape. */
    private final AtomicBoolean fleetFailing = new AtomicBoolean();

    public DaemonMetrics(StateStore state) {
        this(state, null);
    }

    /** @param nodes the node fleet, whose per-node gauges the scrape adds; null where the daemon runs no node executor */
    public DaemonMetrics(StateStore state, @Nullable NodeFleet nodes) {
        this.nodes = nodes;
        Gauge.builder("knotless.queue.depth", state, s -> count(() -> s.runs().waitingCount()))
                .description("Runs waiting in the queue").register(registry);
        Gauge.builder("knotless.runs.running", state, s -> count(() -> s.runs().going().size()))
                .description("Runs taken and not finished").register(registry);
    }

    /** The registry, for the scrape and for tests. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    public String scrape() {
        return registry.scrape() + nodeGauges();
    }

    /** The fleet's per-node gauges ({@link NodeMetrics}), read at scrape time like the queue's. */
    private String nodeGauges() {
        if (nodes == null) {
            return "";
        }
        try {
            String text = NodeMetrics.text(nodes.view());
            fleetFailing.set(false);
            return text;
        } catch (IOException | RuntimeException e) {
            if (!fleetFailing.getAndSet(true)) {
                LOG.warn("metrics: cannot read the node fleet, its gauges are left out until it can: {}", e.getMessage());
            }
            return "";
        }
    }

    /** One repository polled in {@code nanos}: what a poll round costs is their sum over the watched repositories. */
    void polled(long nanos) {
        Timer.builder("knotless.forge.poll").description("How long polling one repository took")
                .register(registry).record(Duration.ofNanos(nanos));
    }

    /** A forge whose publisher counts each final check by status and whose polls are timed. */
    public Forge forge(Forge forge) {
        return new MeteredForge(forge, this);
    }

    /** An executor that counts sweeps, clean-ups and failures by kind. */
    public Executor executor(Executor executor) {
        return new MeteredExecutor(executor, this);
    }

    /** Times each finished step by its status. */
    public RunListener steps() {
        return new RunListener() {
            @Override
            public void stepFinished(RunRequest run, int number, StepResult result) {
                Timer.builder("knotless.step.duration")
                        .description("How long steps ran, by how they ended")
                        .tag("status", result.status().wireName())
                        .publishPercentileHistogram()
                        .register(registry)
                        .record(Duration.ofMillis(result.durationMs()));
            }
        };
    }

    void finished(Check check) {
        Counter.builder("knotless.runs.finished").description("Final checks, by status")
                .tag("status", check.status().wireName()).register(registry).increment();
    }

    void swept(boolean ok, int removed, int failed) {
        Counter.builder("knotless.executor.sweeps").description("Executor sweeps of leftovers, by result")
                .tag("result", ok ? "ok" : "failed").register(registry).increment();
        Counter.builder("knotless.executor.swept").description("Leftover objects a sweep removed or could not remove")
                .tag("result", "removed").register(registry).increment(removed);
        Counter.builder("knotless.executor.swept").description("Leftover objects a sweep removed or could not remove")
                .tag("result", "failed").register(registry).increment(failed);
    }

    /** A restarted daemon asked for a run's environment back: whether the executor had it. */
    void resumed(boolean ok) {
        Counter.builder("knotless.executor.resumes").description("Runs a restart found going, by whether their environment was resumed")
                .tag("result", ok ? "resumed" : "gone").register(registry).increment();
    }

    void cleanedUp(boolean ok) {
        Counter.builder("knotless.executor.cleanups").description("Run environments closed at the end of a run, by result")
                .tag("result", ok ? "ok" : "failed").register(registry).increment();
    }

    void executorError(String operation, Failure.Kind kind) {
        Counter.builder("knotless.executor.errors").description("Executor failures, by operation and failure kind")
                .tag("operation", operation).tag("kind", kind == null ? "unexpected" : kind.name().toLowerCase())
                .register(registry).increment();
    }

    /** Registers the series that have no sample yet, so a scrape shows them from the start at zero. */
    public DaemonMetrics zeroes() {
        for (String status : List.of("success", "failure", "error", "cancelled")) {
            Counter.builder("knotless.runs.finished").description("Final checks, by status").tag("status", status).register(registry);
        }
        for (String result : List.of("ok", "failed")) {
            Counter.builder("knotless.executor.sweeps").description("Executor sweeps of leftovers, by result").tag("result", result).register(registry);
            Counter.builder("knotless.executor.cleanups").description("Run environments closed at the end of a run, by result")
                    .tag("result", result).register(registry);
        }
        for (String result : List.of("resumed", "gone")) {
            Counter.builder("knotless.executor.resumes").description("Runs a restart found going, by whether their environment was resumed")
                    .tag("result", result).register(registry);
        }
        return this;
    }

    private static double count(Callable<Integer> query) {
        try {
            return query.call();
        } catch (Exception e) {
            return Double.NaN; // the state store did not answer: /healthz says so too
        }
    }
}
