package dev.knotless.cli;

import dev.knotless.checkout.Mirrors;
import dev.knotless.http.Listen;
import dev.knotless.secrets.SecretStore;
import dev.knotless.spindle.Spindle;
import dev.knotless.time.Durations;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** {@code daemon --spindle HOSTNAME}: the daemon as a spindle for tangled (docs/guide/tangled.md). */
final class SpindleOptions {

    static final String DEFAULT_LISTEN = "127.0.0.1:6555";

    @Option(names = "--spindle", paramLabel = "HOSTNAME",
            description = "Be a spindle for tangled under this host name: serve what tangled's appview uses of a spindle"
                    + " (/events, /logs, /xrpc/sh.tangled.owner and the secret XRPCs) on --spindle-listen, and run the"
                    + " engine: knotless workflows of the pipelines the knots of the repositories that chose this spindle"
                    + " send. The runner id is did:web:HOSTNAME unless --runner-id says otherwise.")
    @Nullable String hostname;

    @Option(names = "--spindle-owner", paramLabel = "DID",
            description = "With --spindle: the owner's DID, whose sh.tangled.spindle record names the host and whose"
                    + " sh.tangled.spindle.member records name the members; only the owner's and members' repositories run here.")
    @Nullable String owner;

    @Option(names = "--spindle-listen", defaultValue = DEFAULT_LISTEN, paramLabel = "HOST:PORT",
            description = "With --spindle: where the spindle's own HTTP server listens (put it behind the host name's"
                    + " TLS proxy, as tangled's spindle is); default: ${DEFAULT-VALUE}.")
    String listen;

    @Option(names = "--spindle-dev", description = "With --spindle: reach knots over plain ws:// and http:// (a knot under"
            + " test on this machine), as tangled's spindle does in dev mode.")
    boolean dev;

    @Option(names = "--spindle-firehose", paramLabel = "URL",
            description = "With --spindle: follow this PDS's (or relay's) com.atproto.sync.subscribeRepos for changes to the"
                    + " owner's and members' records; its cursor is kept in the state directory.")
    @Nullable String firehose;

    @Option(names = "--spindle-jetstream", paramLabel = "URL",
            description = "With --spindle: follow this Jetstream (as tangled's own spindle does) for changes to the owner's and"
                    + " members' records; its cursor is kept in the state directory.")
    @Nullable String jetstream;

    @Option(names = "--spindle-scan", defaultValue = "10m", paramLabel = "DURATION",
            description = "With --spindle: how often all the owner's and members' records are read again (they are read at"
                    + " start too; between reads the firehose or Jetstream says which accounts changed); default: ${DEFAULT-VALUE}.")
    String scan;

    /** The spindle over the state directory's {@code spindle/}; not started (see {@link Spindle#start}). */
    Spindle open(Path stateDir, String runnerId, HttpUrl plc, Consumer<String> log) throws IOException {
        Listen at = listenAt();
        HttpUrl fh = firehoseUrl();
        HttpUrl js = jetstreamUrl();
        StateDirOption.ownerOnly(stateDir.resolve("spindle")); // its store names who set which secret
        return Spindle.open(new Spindle.Settings(host(), ownerDid(), at.host(), at.port(), dev, plc, fh, js, scanEvery(),
                stateDir.resolve("spindle"), runnerId), new OkHttpClient(), SecretStore.encryptedFile(stateDir),
                new Mirrors(stateDir), log);
    }

    boolean enabled() {
        return hostname != null;
    }

    /** The spindle's host name, checked: a DNS name or name:port, as tangled's records hold it. */
    String host() {
        String h = hostname == null ? "" : hostname;
        if (!h.matches("[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(:[0-9]{1,5})?")) {
            throw new IllegalArgumentException("--spindle '" + h + "' is not a host name (such as spindle.example.com)");
        }
        return h;
    }

    String ownerDid() {
        if (owner == null || !owner.matches("did:(plc|web):[A-Za-z0-9._:%-]{1,2040}")) {
            throw new IllegalArgumentException("--spindle needs --spindle-owner DID (did:plc:… or did:web:…), the account"
                    + " whose sh.tangled.spindle record names " + hostname);
        }
        return owner;
    }

    Listen listenAt() {
        try {
            return Listen.parse(listen);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--spindle-listen " + e.getMessage());
        }
    }

    @Nullable HttpUrl firehoseUrl() {
        return url("--spindle-firehose", firehose);
    }

    @Nullable HttpUrl jetstreamUrl() {
        return url("--spindle-jetstream", jetstream);
    }

    Duration scanEvery() {
        try {
            return Durations.parse(scan);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException("--spindle-scan " + scan + ": " + e.getMessage());
        }
    }

    private static @Nullable HttpUrl url(String option, @Nullable String text) {
        if (text == null) {
            return null;
        }
        HttpUrl url = HttpUrl.parse(text.replaceFirst("^ws", "http"));
        if (url == null) {
            throw new IllegalArgumentException(option + " '" + text + "' is not an http(s) or ws(s) URL");
        }
        return url;
    }
}
