package dev.knotless.http;

import dev.knotless.checks.Check;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.forge.Forge;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.MergeQueue;
import dev.knotless.forge.Repository;
import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * A forge whose publisher counts every final check the daemon publishes and whose polls are timed;
 * otherwise the forge itself.
 * It passes on every method, defaults too ({@code MeteredForgeTest} checks none is missed).
 */
final class MeteredForge implements Forge {

    private final Forge forge;
    private final DaemonMetrics metrics;

    MeteredForge(Forge forge, DaemonMetrics metrics) {
        this.forge = forge;
        this.metrics = metrics;
    }

    @Override
    public List<Repository> repositories() throws IOException {
        return forge.repositories();
    }

    @Override
    public List<ForgeEvent> poll(Repository repo) throws IOException {
        long start = System.nanoTime();
        try {
            return forge.poll(repo);
        } finally {
            metrics.polled(System.nanoTime() - start);
        }
    }

    @Override
    public void acknowledge(Repository repo, ForgeEvent event) throws IOException {
        forge.acknowledge(repo, event);
    }

    @Override
    public Optional<MergeQueue> mergeQueue() {
        return forge.mergeQueue();
    }

    @Override
    public boolean nameRunner(Repository repo, String runnerId) throws IOException {
        return forge.nameRunner(repo, runnerId);
    }

    @Override
    public CheckPublisher publisher() {
        CheckPublisher inner = forge.publisher();
        return new CheckPublisher() {
            @Override
            public void publish(Check check) throws IOException {
                metrics.finished(check);
                inner.publish(check);
            }

            @Override
            public void started(Check check) throws IOException {
                inner.started(check);
            }

            @Override
            public void output(String runId, String text) {
                inner.output(runId, text);
            }
        };
    }
}
