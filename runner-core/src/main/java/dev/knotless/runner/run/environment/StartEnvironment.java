package dev.knotless.runner.run.environment;

import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.Executor;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.ServiceLogSink;
import dev.knotless.executor.ServiceNotReady;
import dev.knotless.executor.ServiceSpec;
import dev.knotless.executor.Session;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunRequest;
import java.util.List;
import java.util.Map;

/** Asks the executor for the run's environment. */
public record StartEnvironment(Executor executor, RunRequest request, RunLimits limits) implements Phase {

    /**
     * What the executor is asked for: the same for a run's start and for its resumption.
     *
     * @param left what is left of the run's deadline now: the executor's own backstop
     */
    public static RunSpec spec(RunRequest r, RunLimits limits, java.time.Duration left) {
        return RunSpec.builder(r.runnerId(), r.runId(), r.image())
                .resources(r.workflow().resources())
                .trust(r.trust())
                .timeout(left)
                .killGrace(limits.killGrace())
                .labels(Map.of("dev.knotless.workflow", r.workflow().name()))
                .keep(r.keep())
                .services(services(r))
                .build();
    }

    /**
     * The workflow's services as the executor gets them: their own variables and nothing else, so
     * no run variable, input or granted secret reaches a service.
     */
    public static List<ServiceSpec> services(RunRequest r) {
        return r.workflow().services().stream()
                .map(s -> new ServiceSpec(s.name(), s.image(), s.variables(), s.command(), s.ports(), s.readyWithin()))
                .toList();
    }

    @Override
    public void run(RunContext run) {
        RunRequest r = request;
        RunSpec spec = spec(r, limits, run.stop().deadline().left());
        run.log().notice("starting " + r.image() + " on " + executor.name()
                + (r.trust() == dev.knotless.executor.Trust.UNTRUSTED
                        ? " (untrusted: " + executor.untrustedNetwork().description() + ")" : ""));
        try {
            Session session = executor.start(spec, run.signal());
            run.environment().started(session);
            run.log().notice("environment " + session.describe() + " is ready"
                    + (spec.services().isEmpty() ? "" : ", with " + ServiceLogs.names(spec.services())));
        } catch (ExecutorException e) {
            Failure f = e.failure();
            if (f.kind() == Failure.Kind.STOPPED) {
                return; // the run's cancellation or deadline speaks for itself
            }
            if (e instanceof ServiceNotReady notReady && notReady.log().length > 0) {
                run.log().notice("service '" + notReady.service() + "' printed:");
                ServiceLogs.write(run.log(), notReady.service(), notReady.log());
            }
            run.verdict().fail(new Verdict(CheckStatus.ERROR, DefaultedImage.reason(r, f)));
        }
    }
}
