package dev.knotless.cli;

import picocli.CommandLine;

/** The {@code knotless-run} command. */
public final class Main {

    private Main() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The whole command tree, as the launcher and the reference-doc test see it. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new KnotlessRunCommand());
        // A fixed width keeps --help identical everywhere, and docs/reference/cli.md in step with it.
        cli.setUsageHelpWidth(100);
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getColorScheme().errorText("knotless-run: " + oneLine(e)));
            return ExitCodes.USAGE;
        });
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine cmd = e.getCommandLine();
            cmd.getErr().println(cmd.getColorScheme().errorText("knotless-run: " + e.getMessage()));
            cmd.getErr().println("Try '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
            return ExitCodes.USAGE;
        });
        return cli;
    }

    static String oneLine(Throwable e) {
        String m = e.getMessage();
        return (m == null ? e.getClass().getSimpleName() : m).replaceAll("\\s*\\R\\s*", " ");
    }
}
