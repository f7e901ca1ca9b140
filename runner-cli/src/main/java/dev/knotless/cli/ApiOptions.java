package dev.knotless.cli;

import dev.knotless.http.ApiAccess;
import dev.knotless.http.ApiToken;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Who may use the daemon's HTTP server ({@code --listen}): tokens, anonymous reading, host names. */
final class ApiOptions {

    @Option(names = "--api-token-file", paramLabel = "FILE",
            description = "Tokens the API takes, one 'NAME SCOPE sha256:HEX' a line (scope read or admin);"
                    + " make one with 'knotless-run api-token'. Clients send 'Authorization: Bearer TOKEN'.")
    @Nullable Path tokenFile;

    @Option(names = "--public-read",
            description = "Let anyone who can connect read runs, logs, outputs and metrics without a token.")
    boolean publicRead;

    @Option(names = "--api-host", paramLabel = "NAME",
            description = "A host name the server answers to besides IP addresses and localhost (repeatable);"
                    + " requests naming any other host are refused, which stops DNS rebinding.")
    List<String> hostNames = List.of();

    /** The access rule; one line of error when {@code --listen} has neither tokens nor {@code --public-read}. */
    ApiAccess access() throws IOException {
        List<ApiToken> tokens = tokenFile == null ? List.of() : ApiAccess.readTokens(tokenFile);
        if (tokens.isEmpty() && !publicRead) {
            throw new IllegalArgumentException("--listen needs --api-token-file FILE (tokens with the read or admin"
                    + " scope) or --public-read (anyone who can connect may read)"
                    + (tokenFile == null ? "" : ": " + tokenFile + " holds no token"));
        }
        return new ApiAccess(Set.copyOf(hostNames), tokens, publicRead);
    }
}
