package dev.knotless.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.atproto.identity.DidResolver;
import dev.knotless.atproto.verify.AtUri;
import dev.knotless.atproto.verify.RecordVerifier;
import dev.knotless.atproto.verify.Verdict;
import dev.knotless.atproto.xrpc.XrpcClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

// Fields are Strings, not URLs or DIDs: picocli loads the types of a built command's fields, and
// `checks` (which builds this) should not load OkHttp or the verifier until `verify` runs.
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Verifies that a check record was signed by its repository's key: fetches the record's proof "
                + "(com.atproto.sync.getRecord) and checks the commit's signature against the DID document's #atproto key, "
                + "and the record against the commit.",
                "Exit status: 0 verified, 1 not verified (the line says what failed), 2 usage error, "
                + "3 could not verify (the DID, its PDS or the network)."})
final class ChecksVerifyCommand implements Callable<Integer> {

    static final int NOT_VERIFIED = ExitCodes.FAILURE;
    static final int CANNOT_VERIFY = ExitCodes.ERROR;

    @Parameters(index = "0", paramLabel = "AT-URI", description = "The record: at://DID/dev.knotless.check/RKEY.")
    String uri;

    @Option(names = "--pds", paramLabel = "URL",
            description = "Fetch the proof from this PDS (default: the #atproto_pds of the DID document).")
    @Nullable String pds;

    @Option(names = "--plc", paramLabel = "URL", defaultValue = AtprotoOptions.PLC_DIRECTORY,
            description = "The PLC directory that resolves did:plc (default: ${DEFAULT-VALUE}).")
    String plc;

    @Option(names = "--runner", paramLabel = "DID",
            description = "Also require the record to be in this DID's repository: a copy of a check in another account's "
                    + "repository verifies, as that account's record.")
    @Nullable String runner;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        AtUri at = AtUri.parse(uri);
        if (runner != null && !runner.startsWith("did:")) {
            throw new IllegalArgumentException("--runner takes a DID (did:plc:…, did:web:…), not " + runner);
        }
        OkHttpClient http = new OkHttpClient.Builder().callTimeout(Duration.ofSeconds(30)).build();
        ObjectMapper json = new ObjectMapper();
        RecordVerifier verifier = new RecordVerifier(new DidResolver(http, url("--plc", plc), json),
                RecordVerifier.xrpc(service -> new XrpcClient(http, service, null, json)));
        Verdict verdict = verifier.verify(at, pds == null ? null : url("--pds", pds), runner);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int code = switch (verdict) {
            case Verdict.Verified v -> {
                v.facts().forEach(out::println);
                out.println("verified");
                yield ExitCodes.SUCCESS;
            }
            case Verdict.Refused r -> {
                err.println("not verified: " + r.reason());
                yield NOT_VERIFIED;
            }
            case Verdict.Unavailable u -> {
                err.println("cannot verify: " + u.reason());
                yield CANNOT_VERIFY;
            }
        };
        out.flush();
        err.flush();
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
        return code;
    }

    private static HttpUrl url(String option, String text) {
        HttpUrl u = HttpUrl.parse(text);
        if (u == null) {
            throw new IllegalArgumentException(option + " takes an http(s) URL, not " + text);
        }
        return u;
    }
}
