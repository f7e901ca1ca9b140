package dev.knotless.runner.daemon;

import dev.knotless.forge.Forge;
import dev.knotless.forge.Repository;
import dev.knotless.forge.RunnerSelection;
import dev.knotless.runner.lander.Lander;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lander's own platform thread: one batch at a time, for each watched repository this runner
 * lands, every poll interval or as soon as {@link #wake} says entries came.
 */
final class LanderLoop {

    private static final Logger LOG = LoggerFactory.getLogger(LanderLoop.class);
    private static final Object WAKE = new Object();

    private final Daemon.Settings settings;
    private final Forge forge;
    private final Lander lander;
    private final BooleanSupplier stopping;
    private final DaemonLog log;
    private final LinkedBlockingQueue<Object> wakes = new LinkedBlockingQueue<>();

    LanderLoop(Daemon.Settings settings, Forge forge, Lander lander, BooleanSupplier stopping, DaemonLog log) {
        this.settings = settings;
        this.forge = forge;
        this.lander = lander;
        this.stopping = stopping;
        this.log = log;
    }

    /** Has the next round start now. */
    void wake() {
        wakes.offer(WAKE);
    }

    /** The thread's body: runs until the daemon stops. */
    void run() {
        try {
            landUntilStopped();
        } catch (Error e) {
            log.line("the lander stopped: " + e); // the daemon goes on running; landing needs a restart
            throw e;
        }
    }

    private void landUntilStopped() {
        while (!stopping.getAsBoolean()) {
            boolean busy = false;
            try {
                for (Repository repo : forge.repositories()) {
                    if (stopping.getAsBoolean()) {
                        return;
                    }
                    if (!RunnerSelection.lands(repo, settings.runnerId())
                            || !(settings.discover() || settings.repos().contains(repo.name()))) {
                        continue;
                    }
                    try {
                        busy |= !lander.landOnce(repo).isEmpty();
                    } catch (IOException | RuntimeException e) {
                        log.line(repo.name() + ": the lander failed: " + OneLine.of(e));
                        LOG.debug("landing failed", e);
                    }
                }
            } catch (IOException | RuntimeException e) {
                log.line("the lander could not read the repositories: " + OneLine.of(e));
            }
            if (!busy) {
                try {
                    wakes.poll(settings.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
                    wakes.clear();
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}
