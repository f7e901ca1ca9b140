package dev.knotless.cli;

import dev.knotless.checks.CheckStore;
import dev.knotless.executor.Executor;
import dev.knotless.runner.checkout.Mirrors;
import dev.knotless.runner.daemon.Daemon;
import dev.knotless.runner.daemon.DaemonLog;
import dev.knotless.runner.forge.EmbeddedForge;
import dev.knotless.runner.run.Cancellation;
import dev.knotless.runner.run.Run;
import dev.knotless.runner.run.RunLimits;
import dev.knotless.runner.run.RunListener;
import dev.knotless.runner.state.StateStore;
import dev.knotless.runner.workflow.WorkflowParser;
import dev.knotless.secrets.SecretStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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

    @Option(names = "--concurrency", defaultValue = "2", paramLabel = "N",
            description = "Runs at once (default: ${DEFAULT-VALUE}).")
    int concurrency;

    @Option(names = "--poll-interval", defaultValue = "30s", paramLabel = "DURATION",
            description = "How often each repository is polled; 200ms, 30s, 5m (default: ${DEFAULT-VALUE}).")
    String pollInterval;

    @Option(names = "--stop-grace", defaultValue = "30s", paramLabel = "DURATION",
            description = "On stop, how long running runs may finish before they are cancelled (default: ${DEFAULT-VALUE}).")
    String stopGrace;




    @Mixin
    RunOptions runOptions;

    @Mixin
    RunnerOptions runner;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        if (runner.runnerId == null) {
            throw new IllegalArgumentException("--runner-id is required: it must match a runner named in the repository records");
        }
        String runnerId = runner.runnerId();
        for (String repo : repos) {
            dev.knotless.runner.forge.Repository.checkName(repo);
        }
        Daemon.Settings settings = new Daemon.Settings(runnerId, discover, new HashSet<>(repos), pulls, concurrency,
                duration("--poll-interval", pollInterval), runOptions.image);
        Duration grace = duration("--stop-grace", stopGrace);
        RunLimits limits = runOptions.limits();
        DaemonLog log = line -> err.println(Instant.now().truncatedTo(ChronoUnit.MILLIS) + " " + line);

        Path stateDir = runner.stateDir();
        try (StateStore state = StateStore.open(stateDir);
             Executor executor = runner.executor();
             RunnerLock lock = RunnerLock.take(stateDir, runnerId)) {
            if (!lock.exclusive()) {
                err.println("knotless-run: another process runs as runner " + runnerId + " on " + stateDir
                        + "; stop it first");
                return ExitCodes.USAGE;
            }
            Run run = RunWiring.run(executor, stateDir, SecretStore.encryptedFile(stateDir), RunListener.NONE, limits,
                    runOptions.cacheBudgetBytes(), Clock.systemUTC());
            Daemon daemon = new Daemon(settings, new EmbeddedForge(stateDir.resolve("forge"), state), state,
                    new Mirrors(stateDir), run, executor, new CheckStore(stateDir), log, Clock.systemUTC());
            Cancellation shutdown = new Cancellation();
            CountDownLatch stop = new CountDownLatch(1);
            shutdown.signal().onStop(why -> stop.countDown());
            Console console = new Console(err, /* colour= */ false);
            try (Interrupts interrupts = Interrupts.cancelOn(shutdown, console)) {
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

    private static Duration duration(String option, String text) {
        try {
            if (text.endsWith("ms")) {
                long ms = Long.parseLong(text.substring(0, text.length() - 2));
                if (ms <= 0) {
                    throw new IllegalArgumentException("must be more than zero");
                }
                return Duration.ofMillis(ms);
            }
            return WorkflowParser.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " " + text + ": " + e.getMessage()
                    + (e.getMessage().contains("ms") ? "" : " (or milliseconds, such as 200ms)"));
        }
    }
}
