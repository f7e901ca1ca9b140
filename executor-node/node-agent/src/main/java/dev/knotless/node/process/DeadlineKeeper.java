package dev.knotless.node.process;

import dev.knotless.node.allocation.RuncRuntime;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the node's own deadline of every allocation ({@link RuncRuntime#endOverdue}) on a thread
 * of its own, so that a run whose runner is gone (killed, cut off, never back) still ends at its
 * deadline and leaves nothing on the node. The runner ends its runs at their deadline itself; the
 * node's deadline is a little later (the runner adds its kill grace and a margin), so this only
 * acts when the runner could not.
 */
final class DeadlineKeeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeadlineKeeper.class);

    private final Thread thread;

    /**
     * @param every how often the deadlines are looked at: the most an allocation outlives its own
     * @param grace between TERM and KILL of an allocation's processes
     */
    DeadlineKeeper(RuncRuntime runtime, Duration every, Duration grace) {
        this.thread = Thread.ofPlatform().name("allocation-deadlines").daemon().unstarted(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    runtime.endOverdue(grace);
                    Thread.sleep(every);
                } catch (InterruptedException e) {
                    return;
                } catch (IOException | RuntimeException e) {
                    LOG.warn("allocation deadlines could not be checked: {}", e.toString());
                    sleep(every);
                }
            }
        });
    }

    DeadlineKeeper start() {
        thread.start();
        return this;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
