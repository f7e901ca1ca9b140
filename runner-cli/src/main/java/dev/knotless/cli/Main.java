package dev.knotless.cli;

import dev.knotless.text.OneLine;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;

/** The {@code knotless-run} command. */
public final class Main {

    private Main() {}

    public static void main(String[] args) {
        // picocli's default factory otherwise looks up groovy.lang.Closure when first used: a class
        // this class path lacks, so the lookup opens every jar on it (a fifth of a bare --help).
        System.setProperty("picocli.disable.closures", "true");
        CommandLine cli = commandLineFor(args);
        // Whether a command ran, rather than help, a version or a usage error being printed.
        AtomicBoolean ran = new AtomicBoolean();
        cli.setExecutionStrategy(parsed -> {
            Integer help = CommandLine.executeHelpRequest(parsed);
            if (help != null) {
                return help;
            }
            // The root's own run() prints its usage.
            ran.set(!(parsed.asCommandLineList().getLast().getCommand() instanceof KnotlessRunCommand));
            return new CommandLine.RunLast().execute(parsed);
        });
        int code = cli.execute(args);
        if (!ran.get()) {
            // Help, version and usage errors only printed. System.exit would ask the System.Logger
            // "java.lang.Runtime" whether to log the exit, and through slf4j-jdk-platform-logging that
            // starts logback: about 400 ms, for a process that logged nothing and registered no hooks.
            cli.getOut().flush();
            cli.getErr().flush();
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(code);
        }
        System.exit(code);
    }

    /** The whole command tree, as the launcher and the reference-doc test see it. */
    public static CommandLine commandLine() {
        return configure(CommandTree.full());
    }

    /** The tree as far as {@code args} need it (see {@link CommandTree}), as the launcher runs it. */
    static CommandLine commandLineFor(String[] args) {
        return configure(CommandTree.forArgs(args));
    }

    private static CommandLine configure(CommandLine cli) {
        // A fixed width keeps --help identical everywhere, and docs/reference/cli.md in step with it.
        cli.setUsageHelpWidth(100);
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getColorScheme().errorText("knotless-run: " + OneLine.of(e)));
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

}
