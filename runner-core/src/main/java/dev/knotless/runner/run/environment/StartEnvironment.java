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
import dev.knotless.plan.Deployment;
import dev.knotless.runner.run.phase.Findings;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Asks the executor for the run's environment, its images pinned by digest first ({@link
 * ImagePins}): what was pinned the check records, what was not the log says, with why.
 */
public final class StartEnvironment implements Phase {

    private final Executor executor;
    private final RunRequest request;
    private final RunLimits limits;
    private final ImagePins pins;
    private final Map<String, String> pinned = new LinkedHashMap<>();

    public StartEnvironment(Executor executor, RunRequest request, RunLimits limits, ImagePins pins) {
        this.executor = executor;
        this.request = request;
        this.limits = limits;
        this.pins = pins;
    }

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
        Deployment deployment = r.workflow().deployment();
        if (deployment != null) {
            run.log().notice("deploying to environment " + deployment.name()
                    + (deployment.url() == null ? "" : " (" + deployment.url() + ")"));
        }
        RunSpec spec = pinned(spec(r, limits, run.stop().deadline().left()), run);
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

    @Override
    public Findings addTo(Findings findings) {
        return findings.withImages(pinned);
    }

    /** {@code spec} with its images pinned where they could be; each left as named told to the log, with why. */
    private RunSpec pinned(RunSpec spec, RunContext run) {
        if (!pins.asks()) {
            return spec;
        }
        String image = pin(spec.image(), run);
        List<ServiceSpec> services = new ArrayList<>();
        for (ServiceSpec s : spec.services()) {
            services.add(new ServiceSpec(s.name(), pin(s.image(), run), s.variables(), s.command(), s.ports(),
                    s.readyWithin()));
        }
        return spec.withImages(image, services);
    }

    private String pin(String image, RunContext run) {
        ImagePins.Pin pin = pins.pin(image);
        switch (pin) {
            case ImagePins.Pinned p -> {
                pinned.put(p.asked(), p.reference());
                run.log().notice("image " + p.asked() + " is " + p.reference());
            }
            case ImagePins.Kept k when k.why() != null -> run.log().notice("image " + k.asked() + " is not pinned: " + k.why());
            case ImagePins.Kept k -> pinned.put(k.asked(), k.asked()); // pinned as the workflow wrote it
            case ImagePins.Unasked u -> { }
        }
        return pin.reference();
    }
}
