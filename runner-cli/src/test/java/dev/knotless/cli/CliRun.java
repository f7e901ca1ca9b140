package dev.knotless.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** {@code knotless-run exec --json} in-process, with its exit status, output and checks. */
record CliRun(int exit, String out, String err, List<JsonNode> checks) {

    static CliRun exec(Path state, String runnerId, Path repo, String... extra) throws Exception {
        List<String> args = new ArrayList<>(List.of("exec", repo.toString(), "--json", "--state-dir",
                state.toString(), "--runner-id", runnerId, "--kill-grace", "2s"));
        args.addAll(List.of(extra));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args.toArray(String[]::new));
        List<JsonNode> checks = new ArrayList<>();
        ObjectMapper mapper = new ObjectMapper();
        for (String line : out.toString().split("\n")) {
            if (line.startsWith("{")) {
                checks.add(mapper.readTree(line));
            }
        }
        return new CliRun(exit, out.toString(), err.toString(), checks);
    }
}
