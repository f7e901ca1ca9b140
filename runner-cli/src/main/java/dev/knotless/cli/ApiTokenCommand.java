package dev.knotless.cli;

import dev.knotless.http.ApiToken;
import java.io.PrintWriter;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Makes an API token: the token for the client on stdout, the line for the daemon's token file on stderr. */
@Command(name = "api-token", mixinStandardHelpOptions = true,
        description = "Makes a token for the daemon's HTTP API: prints the token (give it to the client) on stdout"
                + " and the line to add to the --api-token-file on stderr. The file holds only the token's hash.")
final class ApiTokenCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "NAME", description = "What the token is for (shown in logs instead of the token).")
    String name;

    @Option(names = "--scope", defaultValue = "read", paramLabel = "SCOPE",
            description = "read (runs, logs, outputs, live output, metrics) or admin (also what changes the daemon);"
                    + " default: ${DEFAULT-VALUE}.")
    String scope;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        if (!name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("token name '" + name + "': letters, digits, '.', '_' and '-', at most 64");
        }
        String token = ApiToken.newToken(new SecureRandom());
        ApiToken entry = ApiToken.parse(name + " " + scope + " sha256:"
                + HexFormat.of().formatHex(ApiToken.hash(token)));
        PrintWriter out = spec.commandLine().getOut();
        out.println(token);
        out.flush();
        PrintWriter err = spec.commandLine().getErr();
        err.println(entry.fileLine());
        err.flush();
        return ExitCodes.SUCCESS;
    }
}
