package dev.knotless.cli;

import dev.knotless.atproto.forge.AtprotoForge;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.forge.Cursors;
import dev.knotless.forge.Forge;
import dev.knotless.forge.PipelineRunNames;
import dev.knotless.forge.RunFeed;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.hosted.PushHook;
import dev.knotless.hosted.ForgeHooks;
import dev.knotless.hosted.StatusPublisher;
import dev.knotless.spindle.Spindle;
import dev.knotless.spindle.SpindleServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * The one place that names every forge and builds the ones the daemon reads and tells, as {@link
 * ExecutorWiring} is for executors (docs/design/forges.md): the embedded forge over the state
 * directory, the ATProto forge built on it, the spindle, and the hosted forges' commit statuses and
 * webhooks. The forges see the daemon only through the seam's interfaces handed to them here.
 */
final class ForgeWiring {

    private ForgeWiring() {}

    /**
     * What the daemon's options say of forges, parsed.
     *
     * @param account the runner's ATProto account when {@code --forge atproto}, else null
     * @param atprotoScan how often the ATProto forge reads every account's records again
     */
    record Options(AtprotoOptions.@Nullable Account account, AtprotoOptions atproto, Duration atprotoScan, SpindleOptions spindle,
            ForgeOptions hosted) {}

    /**
     * The forges as this process opened them; closing closes what they started, the commit statuses
     * first (they drain while the forges are still there), then the forge's own.
     *
     * @param forge the forge the daemon reads, metered
     * @param local the embedded forge: the records on the runner host, which the ATProto forge builds
     *     on and a hosted forge's pull-request webhook describes
     * @param publisher where checks go: the forge's own publisher and the hosted forges' statuses
     */
    record Wired(Forge forge, EmbeddedForge local, CheckPublisher publisher, @Nullable Spindle spindle,
            @Nullable AtprotoForge atproto, List<AutoCloseable> closing) implements AutoCloseable {

        Wired {
            closing = List.copyOf(closing);
        }

        /**
         * Hands the forges what they see of the daemon, once it is built: the ATProto forge a look
         * now when records change; the spindle the runs as they go, the names the daemon gives a
         * pipeline's runs, the finished runs' checks, and a poll now for a repository.
         */
        void start(RunFeed live, PipelineRunNames names, SpindleServer.FinishedRuns finished, Consumer<String> pollNow,
                Runnable lookNow) throws IOException {
            if (atproto != null) {
                atproto.wakeWith(lookNow);
            }
            if (spindle != null) {
                spindle.start(live, names, finished, pollNow, lookNow);
            }
        }

        @Override
        public void close() throws Exception {
            Exception first = null;
            for (AutoCloseable c : closing) {
                try {
                    c.close();
                } catch (Exception e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    /**
     * The forge the options choose (the spindle, the ATProto forge, else the embedded one), metered
     * by {@code meter}, and the hosted forges' commit statuses over it.
     *
     * @param cursors where the embedded forge keeps how far it has read each repository
     */
    static Wired open(Options options, Path stateDir, Cursors cursors, String runnerId, UnaryOperator<Forge> meter,
            Consumer<String> log) throws Exception {
        EmbeddedForge local = new EmbeddedForge(stateDir.resolve("forge"), cursors);
        List<AutoCloseable> forgeClosing = new ArrayList<>();
        Spindle spindle = null;
        AtprotoForge atproto = null;
        Forge read = local;
        if (options.spindle().enabled()) {
            spindle = options.spindle().open(stateDir, runnerId, options.atproto().plcUrl(), log);
            forgeClosing.add(spindle);
            read = spindle.forge();
        } else if (options.account() != null) {
            AtprotoOptions.Opened opened = options.account().forge(local, options.atprotoScan(), options.atproto().firehose,
                    options.atproto().plcUrl(), stateDir.resolve("atproto-firehose.cursor"), log);
            atproto = opened.forge();
            forgeClosing.addAll(opened.closing());
            read = atproto;
        }
        Forge forge = meter.apply(read);
        StatusPublisher statuses;
        try {
            statuses = options.hosted().statuses(forge, log);
        } catch (IOException | RuntimeException e) {
            new Wired(forge, local, forge.publisher(), spindle, atproto, forgeClosing).close();
            throw e;
        }
        List<AutoCloseable> closing = new ArrayList<>();
        if (statuses != null) {
            closing.add(statuses);
        }
        closing.addAll(forgeClosing);
        return new Wired(forge, local, ForgeOptions.publishers(forge, statuses), spindle, atproto, closing);
    }

    /** The hosted forges' webhook routes: a hook is a poll made early, a pull request's one described. */
    static ForgeHooks hooks(Options options, boolean listening, PushHook pollSoon, HookedPulls pulls, Consumer<String> log)
            throws IOException {
        return options.hosted().hooks(listening, pulls.watched()::name, pollSoon, pulls, log);
    }
}
