package dev.knotless.cli;

import dev.knotless.runner.run.environment.ImagePins;
import dev.knotless.runner.run.runtime.Runtimes;
import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.CheckStore;
import dev.knotless.executor.Executor;
import dev.knotless.forge.Forge;
import dev.knotless.hosted.ForgeHooks;
import dev.knotless.http.ApiAccess;
import dev.knotless.http.ApiSources;
import dev.knotless.http.DaemonMetrics;
import dev.knotless.http.FanOut;
import dev.knotless.http.Listen;
import dev.knotless.http.NodeFleet;
import dev.knotless.http.StatusServer;
import dev.knotless.runner.daemon.Daemon;
import dev.knotless.runner.daemon.DaemonLog;
import dev.knotless.runner.daemon.EventCaps;
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.runner.daemon.ManualRuns;
import dev.knotless.runner.daemon.Planner;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.run.record.CheckRecorder;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.state.StateStore;
import dev.knotless.secrets.SecretStore;
import dev.knotless.time.Durations;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code knotless-run daemon}: runs until SIGTERM or SIGINT (or until its thread is interrupted),
 * then stops taking work, lets running runs finish within {@code --stop-grace} and cancels the rest.
 */
@Command(
        name = "daemon",
        mixinStandardHelpOptions = true,
        description = {
            "Watches the repositories whose record names this runner, runs their pushes (and pull requests"
                    + " with --pulls), and records the checks in the state dir. Stops on SIGTERM or SIGINT.",
        })
final class DaemonCommand implements Callable<Integer> {

    @Option(names = "--discover", description = "Watch every repository whose record names this runner.")
    boolean discover;

    @Option(names = "--repo", paramLabel = "OWNER/NAME",
            description = "Watch this repository (its record must name this runner); repeatable.")
    List<String> repos = new ArrayList<>();

    @Option(names = "--pulls", description = "Run pull requests too (untrusted authors get no secrets).")
    boolean pulls;

    @Option(names = "--queue", description = "Land the merge queues of the watched repositories whose lander this"
            + " runner is: test batches (event batch) and push them to the target branch.")
    boolean queue;

    @Option(names = "--default-runner", paramLabel = "ID",
            description = "Name this runner in repository records that name none yet; records naming a runner are left alone.")
    @Nullable String defaultRunner;

    @Option(names = "--concurrency", defaultValue = "2", paramLabel = "N",
            description = "Runs at once (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--event-runs", defaultValue = "1024", paramLabel = "N",
            description = "The most runs one trusted event may plan; an event over it queues none and ends as one error"
                    + " check (default: ${DEFAULT-VALUE}).")
    int eventRuns;

    @Option(names = "--untrusted-event-runs", defaultValue = "256", paramLabel = "N",
            description = "The same for an untrusted event, such as a pull request from outside (default: ${DEFAULT-VALUE}).")
    int untrustedEventRuns;

    @Option(names = "--poll-interval", defaultValue = "30s", paramLabel = "DURATION",
            description = "How often each repository is polled; 200ms, 30s, 5m (default: ${DEFAULT-VALUE}).")
    String pollInterval;

    @Option(names = "--stop-grace", defaultValue = "30s", paramLabel = "DURATION",
            description = "On stop, how long running runs may finish before they are cancelled (default: ${DEFAULT-VALUE}).")
    String stopGrace;

    @Option(names = "--listen", arity = "0..1", fallbackValue = Listen.DEFAULT, paramLabel = "HOST:PORT",
            description = "Serve the status page, JSON API, /metrics and /healthz here; without a value "
                    + Listen.DEFAULT + ". Off when not given. Needs --api-token-file or --public-read.")
    @Nullable String listen;

    @Mixin
    ApiOptions api;

    @Mixin
    ForgeOptions forges;

    /** Hidden: a faster clock for on.schedule, so a test sees minutely crons come every few seconds. */
    @Option(names = "--schedule-clock", hidden = true, paramLabel = "RATE@ORIGIN")
    @Nullable String scheduleClock;

    @Option(names = "--log-format", defaultValue = "text", paramLabel = "FORMAT",
            description = "The log on stderr: text (a time and a line) or json (one object a line, with run and"
                    + " repo where known); default: ${DEFAULT-VALUE}.")
    LogFormat logFormat;




    @Mixin
    RunOptions runOptions;

    @Mixin
    AtprotoOptions atproto;

    @Mixin
    SpindleOptions spindle;

    @Mixin
    RunnerOptions runner;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        AtprotoOptions.Account account = atproto.login();
        if (spindle.enabled() && (account != null || !repos.isEmpty() || queue || defaultRunner != null)) {
            throw new IllegalArgumentException("--spindle serves the tangled repositories that chose it: it goes without"
                    + " --forge atproto, --repo, --queue and --default-runner");
        }
        if (runner.runnerId == null && account == null && !spindle.enabled()) {
            throw new IllegalArgumentException("--runner-id is required: it must match a runner named in the repository records");
        }
        String runnerId = account != null ? checkRunnerId(account.runnerId(runner.runnerId))
                : spindle.enabled() && runner.runnerId == null ? checkRunnerId("did:web:" + spindle.host()) : runner.runnerId();
        for (String repo : repos) {
            dev.knotless.forge.Repository.checkName(repo);
        }
        Daemon.Settings settings = new Daemon.Settings(runnerId, discover || spindle.enabled(), new HashSet<>(repos),
                pulls || spindle.enabled(), concurrency,
                duration("--poll-interval", pollInterval), runOptions.image)
                .withQueue(queue).withDefaultRunner(defaultRunner == null ? null : checkRunnerId(defaultRunner))
                .withEventCaps(eventCaps()).withRunsOn(runOptions.images().byLabel());
        Duration grace = duration("--stop-grace", stopGrace);
        RunLimits limits = runOptions.limits();
        Runtimes runtimes = runOptions.runtimes();
        ImagePins pins = runOptions.imagePins();
        Listen listenAt = listen(listen);
        ApiAccess access = listenAt == null ? null : api.access();
        logFormat.applyToLogback();
        DaemonLog log = logFormat.daemonLog(err);

        Path stateDir = runner.stateDir();
        try (StateStore state = StateStore.open(stateDir);
             ExecutorWiring.Wired opened = runner.wire(true);
             RunnerLock lock = RunnerLock.take(stateDir, runnerId)) {
            if (!lock.exclusive()) {
                err.println("knotless-run: another process runs as runner " + runnerId + " on " + stateDir
                        + "; stop it first");
                return ExitCodes.USAGE;
            }
            LiveRuns live = new LiveRuns();
            Executor executor = opened.executor();
            NodeFleet fleet = opened.fleet();
            DaemonMetrics metrics = new DaemonMetrics(state, fleet).zeroes();
            Executor metered = metrics.executor(executor);
            ForgeWiring.Options forgeOptions = new ForgeWiring.Options(account, atproto,
                    duration("--atproto-scan", atproto.scan), spindle, forges);
            ForgeWiring.Wired wired = ForgeWiring.open(forgeOptions, stateDir, state.cursors(), runnerId, metrics::forge, log::line);
            Forge forge = wired.forge();
            CheckStore checks = new CheckStore(stateDir);
            CheckRecorder recorder = new CheckRecorder(checks, state.runs(), wired.publisher(), log::line);
            Run run = RunWiring.run(metered, stateDir, recorder, SecretStore.encryptedFile(stateDir),
                    FanOut.of(live, metrics.steps()), limits, runOptions.cacheBudgetBytes(), state.progress(), Clock.systemUTC(), runtimes,
                    pins);
            Daemon daemon = new Daemon(settings, forge, state, new Mirrors(stateDir), run, metered, recorder, log,
                    Clock.systemUTC(), scheduleClock == null ? Clock.systemUTC() : ScheduleClock.parse(scheduleClock, Clock.systemUTC()));
            wired.start(live, Planner.runNames(runnerId), id -> state.runs().run(id).flatMap(dev.knotless.runner.state.RunRecord::finalCheck),
                    repo -> pollSoon(daemon, repo, log), daemon::lookNow);
            Cancellation shutdown = new Cancellation();
            CountDownLatch stop = new CountDownLatch(1);
            shutdown.signal().onStop(why -> stop.countDown());
            Console console = new Console(err, /* colour= */ false);
            try (ForgeWiring.Wired closeForges = wired;
                 Interrupts interrupts = Interrupts.cancelOn(shutdown, console);
                 StatusServer server = serve(listenAt, access, ForgeWiring.hooks(forgeOptions, listenAt != null, daemon::pollSoon, new HookedPulls(daemon::watched, wired.local(), forges.confirmation()::ask, log::line), log::line), new ApiSources(state, checks, forge, live, metrics, daemon::alive,
                         daemon::cancel, new ManualRuns(runnerId, forge, new Mirrors(stateDir), state.runs()),
                         new dev.knotless.cache.CacheStore(stateDir.resolve("cache"), runOptions.cacheBudgetBytes(), Clock.systemUTC()),
                         fleet, daemon::pollSoon),
                         log)) {
                daemon.start();
                try {
                    stop.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                log.line("stopping: waiting up to " + grace.toSeconds() + "s for " + daemon.going().size() + " running run(s)");
                boolean interrupted = Thread.interrupted(); // let the stop wait; say so afterwards
                daemon.stop(grace);
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            log.line("stopped");
        }
        return ExitCodes.SUCCESS;
    }

    private EventCaps eventCaps() {
        if (eventRuns < 1 || untrustedEventRuns < 1) {
            throw new IllegalArgumentException("--event-runs and --untrusted-event-runs must be at least 1");
        }
        return new EventCaps(eventRuns, untrustedEventRuns);
    }

    /** The spindle's wake for a repository a knot sent a pipeline for; a failure is one line (the next poll finds it). */
    private static void pollSoon(Daemon daemon, String repo, DaemonLog log) {
        try {
            daemon.pollSoon(repo);
        } catch (java.io.IOException | RuntimeException e) {
            log.line("spindle: could not wake the daemon for " + repo + ": " + e.getMessage());
        }
    }

    private static Listen listen(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Listen.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--listen " + e.getMessage());
        }
    }

    /** The HTTP server when {@code --listen} was given, else null (nothing to close). */
    private static StatusServer serve(Listen at, ApiAccess access, ForgeHooks hooks, ApiSources sources, DaemonLog log) {
        if (at == null) {
            return null;
        }
        StatusServer server = new StatusServer(at, sources, access, hooks).start();
        Listen bound = new Listen(at.host(), server.port());
        log.line("status page and API on http://" + bound + "/ (" + describe(access)
                + (at.loopback() ? ")" : "; not loopback: reachable from other machines)"));
        return server;
    }

    private static String describe(ApiAccess access) {
        String tokens = access.tokens().size() + (access.tokens().size() == 1 ? " token" : " tokens");
        return access.publicRead() ? "anyone may read, " + tokens : "reading needs a token, " + tokens;
    }

    /** A runner id as records need it, checked before any record is written. */
    private static String checkRunnerId(String id) {
        try {
            return dev.knotless.forge.Repository.checkRunnerId(id);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--default-runner: " + e.getMessage());
        }
    }

    private static Duration duration(String option, String text) {
        try {
            if (text.endsWith("ms")) {
                long ms = Long.parseLong(text.substring(0, text.length() - 2));
                if (ms <= 0) {
                    throw new IllegalArgumentException("must be more than zero");
                }
                return Duration.ofMillis(ms);
            }
            return Durations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " " + text + ": " + e.getMessage()
                    + (e.getMessage().contains("ms") ? "" : " (or milliseconds, such as 200ms)"));
        }
    }
}
