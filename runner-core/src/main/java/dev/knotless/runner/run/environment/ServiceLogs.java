package dev.knotless.runner.run.environment;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.OutputSink;
import dev.knotless.executor.ServiceLogSink;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.record.RunLog;
import dev.knotless.secrets.MaskingSink;
import java.util.List;
import java.util.stream.Collectors;

/**
 * After the last step, each service's output into the run's log: prefixed with its name, at most
 * {@link ServiceLogSink#CAP} of it, masked like step output. Collected once at the end rather
 * than streamed: a service's lines would otherwise cut into the steps' output, and the end is
 * where a failing run's reader looks for why a service misbehaved. A log that cannot be read is a
 * notice, never the run's failure.
 */
public final class ServiceLogs implements Phase {

    private final List<ServiceSpec> services;

    public ServiceLogs(List<ServiceSpec> services) {
        this.services = List.copyOf(services);
    }

    @Override
    public void run(RunContext run) {
        for (ServiceSpec service : services) {
            run.log().notice("service '" + service.name() + "' log:");
            try (MaskingSink masked = run.log().serviceOutput()) {
                ServiceLogSink sink = new ServiceLogSink(service.name(), masked);
                run.session().serviceLog(service.name(), ServiceLogSink.CAP, sink, run.signal());
                sink.finish();
            } catch (ExecutorException e) {
                run.log().notice("the log of service '" + service.name() + "' could not be read: " + e.getMessage());
            }
        }
    }

    @Override
    public boolean runsAfterFailure() {
        return true; // a failing run is where a service's log tells most
    }

    /** What a service printed before a failed start, as {@link #run} writes a log. */
    static void write(RunLog log, String service, byte[] printed) {
        try (MaskingSink masked = log.serviceOutput()) {
            ServiceLogSink sink = new ServiceLogSink(service, masked);
            sink.write(OutputSink.Stream.STDOUT, printed, 0, printed.length);
            sink.finish();
        }
    }

    /** {@code services db (postgres:16), web (x)} for the start notice. */
    static String names(List<ServiceSpec> services) {
        return (services.size() == 1 ? "service " : "services ")
                + services.stream().map(s -> s.name() + " (" + s.image() + ")").collect(Collectors.joining(", "));
    }
}
