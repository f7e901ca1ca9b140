package dev.knotless.executor.toolkit;

import dev.knotless.executor.StopSignal;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.ServiceNotReady;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.ServiceLogSink;
import dev.knotless.executor.Failure;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Waits until every service of a run accepts TCP connections on its ports: the one wait loop and
 * timeout policy of every executor, each calling {@link #await} at the end of its {@code start}.
 *
 * <p>How a port is judged is the same everywhere too: services share the run's network namespace
 * on every executor, so a probe in the run container ({@link StepPayload.Kind#PROBE}, through the
 * executor's own session) reads the namespace's listening sockets from {@code /proc/net/tcp} and
 * {@code tcp6}. A socket in {@code LISTEN} is one the kernel completes a connection to, whether or
 * not the service has called {@code accept} yet: what "accepts a connection" means to a step. The
 * probe needs only {@code /bin/sh} (a {@code read} loop, no {@code cat} or {@code nc}), which every
 * run image has, and it works for an untrusted run with no interface but loopback, which nothing
 * outside the namespace could connect to.
 *
 * <p>Each service's wait starts when this is called, right after the executor started them all,
 * and ends at its own {@link ServiceSpec#readyWithin}. A service the executor sees ended ({@link
 * Watch}) fails at once. The failure is a {@link ServiceNotReady} naming the service and the first
 * port that did not answer, with the service's output so far.
 */
public final class ServiceReadiness {

    /** How often the ports are looked at: a probe is one exec, tens of milliseconds. */
    public static final Duration POLL = Duration.ofMillis(250);

    /** Listening TCP sockets (state 0A) of the namespace, one hex port a line. */
    static final String PROBE = "for f in /proc/net/tcp /proc/net/tcp6; do [ -r \"$f\" ] || continue; "
            + "while read -r sl local remote st rest; do [ \"$st\" = 0A ] && echo \"${local##*:}\"; done < \"$f\"; done; true";

    private static final int MAX_PROBE_OUTPUT = 1024 * 1024;

    /** What an executor knows about a started service beyond its ports. */
    @FunctionalInterface
    public interface Watch {
        /** Why the service can no longer become ready (its container ended, its image was refused), if so. */
        Optional<String> ended(ServiceSpec service) throws ExecutorException;

        Watch NOTHING = service -> Optional.empty();
    }

    private final LongSupplier nanos;
    private final Duration poll;

    public ServiceReadiness() {
        this(System::nanoTime, POLL);
    }

    ServiceReadiness(LongSupplier nanos, Duration poll) {
        this.nanos = nanos;
        this.poll = poll;
    }

    /**
     * Returns once every port of every service of {@code spec} is listening in {@code session}'s
     * network namespace.
     *
     * @throws ServiceNotReady when a service ended or passed its wait
     * @throws ExecutorException {@code STOPPED} when {@code signal} fired; what the probe's failure says otherwise
     */
    public void await(Session session, RunSpec spec, Watch watch, StopSignal signal) throws ExecutorException {
        Map<ServiceSpec, List<Integer>> waiting = new LinkedHashMap<>();
        for (ServiceSpec s : spec.services()) {
            if (!s.ports().isEmpty()) {
                waiting.put(s, new ArrayList<>(s.ports()));
            }
        }
        long started = nanos.getAsLong();
        Object wake = new Object();
        try (StopSignal.Registration waking = signal.onStop(why -> {
            synchronized (wake) {
                wake.notifyAll();
            }
        })) {
            while (!waiting.isEmpty()) {
                ExecutorException.throwIfStopped(signal, "wait for the services of run " + spec.runId());
                Set<Integer> listening = listening(session, signal);
                long waited = nanos.getAsLong() - started;
                for (var it = waiting.entrySet().iterator(); it.hasNext(); ) {
                    var e = it.next();
                    ServiceSpec service = e.getKey();
                    e.getValue().removeIf(listening::contains);
                    if (e.getValue().isEmpty()) {
                        it.remove();
                        continue;
                    }
                    int port = e.getValue().getFirst();
                    Optional<String> ended = watch.ended(service);
                    if (ended.isPresent()) {
                        throw notReady(session, service, "service '" + service.name() + "' ended before it accepted a connection on port "
                                + port + ": " + ended.get(), signal);
                    }
                    if (waited >= service.readyWithin().toNanos()) {
                        throw notReady(session, service, "service '" + service.name() + "' did not accept a connection on port "
                                + port + " within " + human(service.readyWithin()), signal);
                    }
                }
                if (!waiting.isEmpty()) {
                    synchronized (wake) {
                        if (!signal.isStopped()) {
                            wake.wait(poll.toMillis());
                        }
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ExecutorException(Failure.Kind.STOPPED, "wait for the services of run " + spec.runId() + " interrupted");
        }
    }

    /** The TCP ports listening in the session's network namespace. */
    static Set<Integer> listening(Session session, StopSignal signal) throws ExecutorException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        OutputSink sink = (stream, buffer, offset, length) -> {
            if (stream == OutputSink.Stream.STDOUT && out.size() + length <= MAX_PROBE_OUTPUT) {
                out.write(buffer, offset, length);
            }
        };
        StepOutcome outcome = session.run(StepPayload.probe("service ports", List.of("/bin/sh", "-c", PROBE)), sink, signal);
        return switch (outcome) {
            case StepOutcome.Exited(int code) when code == 0 -> ports(out.toString(StandardCharsets.US_ASCII));
            case StepOutcome.Exited(int code) -> throw new ExecutorException(Failure.Kind.INFRASTRUCTURE,
                    "cannot read the run's listening ports: the probe exited with " + code);
            case StepOutcome.Failed(Failure failure) -> throw new ExecutorException(failure.kind(),
                    "cannot read the run's listening ports: " + failure.reason());
            case StepOutcome.TimedOut t -> throw new ExecutorException(Failure.Kind.STOPPED, "wait for the services stopped (timeout)");
            case StepOutcome.Cancelled c -> throw new ExecutorException(Failure.Kind.STOPPED, "wait for the services stopped (cancelled)");
        };
    }

    /** Hex port numbers, one a line, as the probe prints them. */
    static Set<Integer> ports(String text) {
        Set<Integer> ports = new HashSet<>();
        for (String line : text.split("\n")) {
            String hex = line.strip();
            if (!hex.isEmpty() && hex.length() <= 4 && hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                ports.add(Integer.parseInt(hex, 16));
            }
        }
        return ports;
    }

    /** The failure, with what the service printed (best effort: a log that cannot be read leaves it empty). */
    private static ServiceNotReady notReady(Session session, ServiceSpec service, String reason, StopSignal signal) {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try {
            session.serviceLog(service.name(), ServiceLogSink.CAP, (stream, buffer, offset, length) -> {
                int room = Math.min(length, ServiceLogSink.CAP - log.size());
                log.write(buffer, offset, Math.max(0, room));
            }, signal);
        } catch (ExecutorException | RuntimeException e) {
            // the reason stands on its own
        }
        return new ServiceNotReady(service.name(), reason, log.toByteArray());
    }

    static String human(Duration d) {
        long s = d.toSeconds();
        if (s >= 60 && s % 60 == 0) {
            return s / 60 + "m";
        }
        return d.toMillis() % 1000 == 0 ? s + "s" : d.toMillis() + "ms";
    }
}
