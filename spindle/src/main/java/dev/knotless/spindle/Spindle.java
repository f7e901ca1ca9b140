package dev.knotless.spindle;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.auth.ServiceAuth;
import dev.knotless.atproto.forge.CommitSignatures;
import dev.knotless.atproto.forge.Firehose;
import dev.knotless.atproto.forge.FirehoseCursor;
import dev.knotless.atproto.forge.ReconnectDelay;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.checkout.Mirrors;
import dev.knotless.forge.PipelineRunNames;
import dev.knotless.forge.RunFeed;
import dev.knotless.forge.Forge;
import dev.knotless.secrets.SecretStore;
import dev.knotless.spindle.knot.KnotCursors;
import dev.knotless.spindle.knot.KnotEvents;
import dev.knotless.spindle.setup.Jetstream;
import dev.knotless.spindle.setup.PdsClients;
import dev.knotless.spindle.setup.SpindleDirectory;
import dev.knotless.spindle.setup.SpindleRecords;
import dev.knotless.spindle.setup.TangledRepo;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;

/**
 * The spindle, put together: opened before the daemon (the daemon takes its {@link #forge()}),
 * started once the daemon can be woken and its live runs read, closed after the daemon stops.
 * docs/design/spindle.md.
 */
public final class Spindle implements AutoCloseable {

    /**
     * @param hostname the spindle's host name: its service DID is {@code did:web:HOSTNAME}
     * @param owner the owner's DID
     * @param plainKnots knots over ws:// and http:// (a knot under test)
     * @param firehose a PDS or relay whose repository firehose says which accounts changed; null for none
     * @param jetstream a Jetstream that says the same; null for none
     * @param dir where the spindle keeps its database and cursors
     */
    public record Settings(String hostname, String owner, String listenHost, int listenPort, boolean plainKnots, HttpUrl plc,
            @Nullable HttpUrl firehose, @Nullable HttpUrl jetstream, Duration scanEvery, Path dir, String runnerId) {

        public String serviceDid() {
            return "did:web:" + hostname;
        }
    }

    private final Settings settings;
    private final OkHttpClient http;
    private final ObjectMapper json = new ObjectMapper();
    private final Clock clock = Clock.systemUTC();
    private final SpindleStore store;
    private final StatusSignal signal = new StatusSignal();
    private final PipelineStatuses statuses;
    private final SpindleDirectory directory;
    private final DidResolver resolver;
    private final WatchedRepos watched;
    private final KnotUrls urls;
    private final SpindleForge forge;
    private final SecretStore secrets;
    private final Mirrors mirrors;
    private final Consumer<String> log;
    private final List<AutoCloseable> closing = new ArrayList<>();

    private Spindle(Settings settings, OkHttpClient http, SecretStore secrets, Mirrors mirrors, Consumer<String> log)
            throws IOException {
        this.settings = settings;
        this.http = http;
        this.secrets = secrets;
        this.mirrors = mirrors;
        this.log = log;
        this.store = SpindleStore.open(settings.dir(), clock);
        this.statuses = new PipelineStatuses(store, json, clock, signal);
        this.resolver = new DidResolver(http, settings.plc(), json);
        PdsClients pds = PdsClients.resolving(resolver, http, json, Duration.ofMinutes(10), clock);
        this.directory = new SpindleDirectory(new SpindleRecords(settings.owner(), settings.hostname(), pds, log),
                settings.scanEvery(), clock, log);
        this.watched = () -> directory.repos().stream().map(Spindle::watched).toList();
        this.urls = new KnotUrls(settings.plainKnots());
        this.forge = new SpindleForge(settings.runnerId(), watched, urls, store, statuses, json, log, directory::readMarked);
    }

    /** Opens the spindle's store and forge; nothing listens or follows yet. */
    public static Spindle open(Settings settings, OkHttpClient http, SecretStore secrets, Mirrors mirrors, Consumer<String> log)
            throws IOException {
        return new Spindle(settings, http, secrets, mirrors, log);
    }

    private static WatchedRepos.Watched watched(TangledRepo r) {
        return new WatchedRepos.Watched(r.atUri(), r.did(), r.name(), r.knot());
    }

    /** The daemon's forge. */
    public Forge forge() {
        return forge;
    }

    /**
     * Reads the setup, follows the knots and the record streams, and serves the appview.
     *
     * @param live the daemon's runs as they go, for the appview's logs
     * @param names the ids the daemon gives a pipeline's runs, so each status names the run it is for
     * @param pollNow asks the daemon to poll a repository now, by name
     * @param lookNow asks the daemon's loop to look now (records changed)
     */
    public void start(RunFeed live, PipelineRunNames names, SpindleServer.FinishedRuns finished, Consumer<String> pollNow, Runnable lookNow)
            throws IOException {
        directory.wakeWith(lookNow);
        // The appview's side first: what knots send is told on streams already open.
        ServiceAuth auth = new ServiceAuth(resolver, clock);
        Callers callers = (authorization, method) -> switch (auth.verify(authorization, settings.serviceDid(), method)) {
            case ServiceAuth.Accepted a -> new Callers.Caller.Known(a.did());
            case ServiceAuth.Refused r -> new Callers.Caller.Refused(r.reason());
        };
        SpindleSecrets secretCalls = new SpindleSecrets(callers, watched, urls::cloneUrl, secrets, store, json, clock);
        SpindleServer server = new SpindleServer(settings.listenHost(), settings.listenPort(), settings.owner(), store, signal, live,
                finished, secretCalls, new LogLines(json, clock), json).start();
        closing.add(server);
        PipelineIntake intake = new PipelineIntake(names, watched, urls, store, statuses, forge, mirrors, json,
                pollNow, log);
        KnotEvents knots = new KnotEvents(http, KnotCursors.inFile(settings.dir().resolve("knot-cursors.json")),
                settings.plainKnots(), java.util.Set.of(PipelineIntake.NSID), intake::event, log, clock);
        closing.add(knots);
        directory.onRepos(repos -> repos.forEach(r -> knots.follow(r.knot())));
        directory.refresh();
        directory.repos().forEach(r -> knots.follow(r.knot()));
        if (settings.firehose() != null) {
            CommitSignatures signatures = new CommitSignatures(did -> resolver.resolve(did).signingKey(), clock);
            Firehose firehose = new Firehose(http, settings.firehose(), new FirehoseCursor(settings.dir().resolve("firehose.cursor"),
                    settings.firehose().toString()), directory, signatures, ReconnectDelay.DEFAULT, RandomGenerator.getDefault(),
                    clock, log, java.util.Set.copyOf(Jetstream.COLLECTIONS));
            firehose.start();
            closing.add(firehose);
        }
        if (settings.jetstream() != null) {
            Jetstream jetstream = new Jetstream(http, settings.jetstream(), new FirehoseCursor(settings.dir().resolve("jetstream.cursor"),
                    settings.jetstream().toString()), directory, ReconnectDelay.DEFAULT, RandomGenerator.getDefault(), clock, log);
            jetstream.start();
            closing.add(jetstream);
        }
        log.accept("spindle: serving " + settings.hostname() + " (owner " + settings.owner() + ") on " + settings.listenHost()
                + ":" + server.port() + "; " + directory.repos().size() + " repositories");
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (AutoCloseable c : closing.reversed()) {
            try {
                c.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        store.close();
        if (first != null) {
            throw first;
        }
    }
}
