package dev.knotless.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.AtprotoCheckPublisher;
import dev.knotless.atproto.forge.AtprotoForge;
import dev.knotless.atproto.forge.CommitSignatures;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.forge.Firehose;
import dev.knotless.atproto.forge.FirehoseCursor;
import dev.knotless.atproto.forge.ReconnectDelay;
import dev.knotless.atproto.forge.RepoRecords;
import dev.knotless.atproto.xrpc.Identity;
import dev.knotless.atproto.xrpc.Session;
import dev.knotless.atproto.xrpc.XrpcClient;
import dev.knotless.hosted.OwnerOnlyFile;
import dev.knotless.forge.embedded.EmbeddedForge;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Where the daemon's repositories are: its own state directory, or the repository records on a PDS. */
final class AtprotoOptions {

    /** The public PLC directory: the default of every {@code --plc}, so that all resolve did:plc alike. */
    static final String PLC_DIRECTORY = "https://plc.directory";

    @Option(names = "--forge", defaultValue = "embedded", paramLabel = "FORGE",
            description = "Where repositories are: embedded (records in the state directory, 'repo add') or atproto"
                    + " (dev.knotless.repo records on --pds that name this runner's DID; checks are published as"
                    + " dev.knotless.check records in the runner's own repository); default: ${DEFAULT-VALUE}.")
    String forge;

    @Option(names = "--pds", paramLabel = "URL",
            description = "With --forge atproto: the PDS that holds the runner's account and whose accounts' repository records are read.")
    @Nullable String pds;

    @Option(names = "--identity", paramLabel = "FILE",
            description = "With --forge atproto: the runner's account, as 'identifier=HANDLE_OR_DID' and 'password=APP_PASSWORD'"
                    + " lines (the password is never printed); the account's DID is the runner id.")
    @Nullable Path identity;

    @Option(names = "--plc", defaultValue = PLC_DIRECTORY, paramLabel = "URL",
            description = "With --forge atproto or --spindle: the PLC directory that resolves did:plc accounts (their PDS, and"
                    + " the keys service-auth tokens and the firehose's commits are checked against); default: ${DEFAULT-VALUE}.")
    String plc;

    @Option(names = "--atproto-scan", defaultValue = "10m", paramLabel = "DURATION",
            description = "With --forge atproto: how often every account's repository records are read again (they are"
                    + " read at start too; between scans the firehose says which accounts changed); default: ${DEFAULT-VALUE}.")
    String scan;

    @Option(names = "--atproto-firehose", arity = "0..1", defaultValue = "true", fallbackValue = "true", paramLabel = "BOOLEAN",
            description = "With --forge atproto: follow the PDS's com.atproto.sync.subscribeRepos so a repository record is"
                    + " found when it is written; its cursor is kept in the state directory. With false, only --atproto-scan"
                    + " finds records (give it a shorter interval); default: ${DEFAULT-VALUE}.")
    boolean firehose;

    /** The PLC directory's URL. */
    HttpUrl plcUrl() {
        return url("--plc", plc);
    }

    /** The runner's account, logged in; null with the embedded forge. */
    @Nullable Account login() throws IOException {
        if (forge.equals("embedded")) {
            if (pds != null || identity != null) {
                throw new IllegalArgumentException("--pds and --identity go with --forge atproto");
            }
            return null;
        }
        if (!forge.equals("atproto")) {
            throw new IllegalArgumentException("--forge must be embedded or atproto, not '" + forge + "'");
        }
        if (pds == null || identity == null) {
            throw new IllegalArgumentException("--forge atproto needs --pds URL and --identity FILE");
        }
        HttpUrl url = url("--pds", pds);
        OwnerOnlyFile.requireOwnerOnly(identity); // it holds the account's app password
        OkHttpClient http = new OkHttpClient();
        XrpcClient client = new XrpcClient(http, url, Identity.read(identity), new ObjectMapper());
        return new Account(http, client, client.login());
    }

    private static HttpUrl url(String option, String text) {
        HttpUrl url = HttpUrl.parse(text);
        if (url == null) {
            throw new IllegalArgumentException(option + " '" + text + "' is not an http(s) URL");
        }
        return url;
    }

    /** A logged-in runner account. */
    record Account(OkHttpClient http, XrpcClient client, Session session) {

        /** The runner id: the account's DID; a {@code --runner-id} given as well must be the same. */
        String runnerId(@Nullable String given) {
            if (given != null && !given.equals(session.did())) {
                throw new IllegalArgumentException("--runner-id " + given + " is not the DID of the --identity account ("
                        + session.did() + "); leave --runner-id out with --forge atproto");
            }
            return session.did();
        }

        /**
         * The ATProto forge over {@code local}, with its check publisher and, when {@code firehose}, the
         * firehose follower, started (both closed by the caller).
         *
         * @param cursorFile where the firehose's cursor is kept
         */
        Opened forge(EmbeddedForge local, Duration scanEvery, boolean firehose, HttpUrl plc, Path cursorFile, Consumer<String> log) {
            AtomicReference<AtprotoForge> forge = new AtomicReference<>();
            AtprotoCheckPublisher publisher = new AtprotoCheckPublisher(client,
                    repo -> forge.get() == null ? repo : forge.get().atUri(repo).orElse(repo), AtprotoCheckPublisher.Settings.DEFAULT, log);
            forge.set(new AtprotoForge(new RepoRecords(client, log), session.did(), local, publisher, scanEvery, Clock.systemUTC(), log));
            if (!firehose) {
                return new Opened(forge.get(), List.of(publisher));
            }
            DidResolver dids = new DidResolver(http, plc, new ObjectMapper());
            CommitSignatures signatures = new CommitSignatures(did -> dids.resolve(did).signingKey(), Clock.systemUTC());
            Firehose follower = new Firehose(http, client.service(), new FirehoseCursor(cursorFile, client.service().toString()),
                    forge.get(), signatures, ReconnectDelay.DEFAULT, RandomGenerator.getDefault(), Clock.systemUTC(), log);
            follower.start();
            // The follower first: it stops marking before the publisher sends what is left.
            return new Opened(forge.get(), List.of(follower, publisher));
        }
    }

    /**
     * The ATProto forge as {@link Account#forge} opened it, and what must be closed when the daemon
     * stops, in order ({@link ForgeWiring} closes them).
     */
    record Opened(AtprotoForge forge, List<AutoCloseable> closing) {

        Opened {
            closing = List.copyOf(closing);
        }
    }
}
