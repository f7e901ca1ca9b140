package dev.knotless.http;

import dev.knotless.hosted.PushHook;
import dev.knotless.checks.CheckStore;
import dev.knotless.runner.daemon.LiveRuns;
import dev.knotless.runner.daemon.ManualRuns;
import dev.knotless.forge.Forge;
import dev.knotless.runner.state.StateStore;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import java.util.function.BooleanSupplier;

/**
 * What the HTTP server reads; it writes to none of them (runs are cancelled through {@code cancel}).
 *
 * @param loopAlive whether the daemon's loop runs ({@code Daemon::alive})
 * @param cancel how a run is cancelled ({@code Daemon::cancel})
 * @param manualRuns what queues {@code POST /api/runs}; null where no daemon takes runs (then 503)
 * @param caches the runner's cache store, where runs' artifacts are; null to serve none
 * @param nodes the node fleet ({@code /api/nodes}); null where the daemon runs no node executor (then 404)
 * @param pushHook what {@code POST /hooks/git} asks ({@code Daemon::pollSoon}); null where no
 *     daemon polls (then 503)
 */
public record ApiSources(StateStore state, CheckStore checks, Forge forge, LiveRuns live, DaemonMetrics metrics,
        BooleanSupplier loopAlive, RunCancel cancel, @Nullable ManualRuns manualRuns,
        dev.knotless.cache.@Nullable CacheStore caches, @Nullable NodeFleet nodes, @Nullable PushHook pushHook) {

    /** Sources with manual runs and artifacts, without nodes or push hooks. */
    public ApiSources(StateStore state, CheckStore checks, Forge forge, LiveRuns live, DaemonMetrics metrics,
            BooleanSupplier loopAlive, RunCancel cancel, @Nullable ManualRuns manualRuns,
            dev.knotless.cache.@Nullable CacheStore caches) {
        this(state, checks, forge, live, metrics, loopAlive, cancel, manualRuns, caches, null, null);
    }

    /** Sources with manual runs, without artifacts. */
    public ApiSources(StateStore state, CheckStore checks, Forge forge, LiveRuns live, DaemonMetrics metrics,
            BooleanSupplier loopAlive, RunCancel cancel, @Nullable ManualRuns manualRuns) {
        this(state, checks, forge, live, metrics, loopAlive, cancel, manualRuns, null, null, null);
    }

    /** Sources with no daemon to cancel runs through or queue them. */
    public ApiSources(StateStore state, CheckStore checks, Forge forge, LiveRuns live, DaemonMetrics metrics,
            BooleanSupplier loopAlive) {
        this(state, checks, forge, live, metrics, loopAlive, RunCancel.NONE, null, null, null, null);
    }

    /** Sources with no daemon to queue runs. */
    public ApiSources(StateStore state, CheckStore checks, Forge forge, LiveRuns live, DaemonMetrics metrics,
            BooleanSupplier loopAlive, RunCancel cancel) {
        this(state, checks, forge, live, metrics, loopAlive, cancel, null, null, null, null);
    }

    public ApiSources {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(checks, "checks");
        Objects.requireNonNull(forge, "forge");
        Objects.requireNonNull(live, "live");
        Objects.requireNonNull(metrics, "metrics");
        Objects.requireNonNull(loopAlive, "loopAlive");
        Objects.requireNonNull(cancel, "cancel");
    }
}
