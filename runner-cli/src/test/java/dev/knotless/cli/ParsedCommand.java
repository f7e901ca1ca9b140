package dev.knotless.cli;

/** The {@code exec} or {@code daemon} command object picocli makes of some flags, for tests of what the flags mean. */
final class ParsedCommand {

    private ParsedCommand() {}

    /** {@code exec .} or {@code daemon} with {@code flags}: an {@link ExecCommand} or a {@link DaemonCommand}. */
    static Object of(String command, String... flags) {
        String[] args = new String[flags.length + (command.equals("exec") ? 2 : 1)];
        args[0] = command;
        int at = 1;
        if (command.equals("exec")) {
            args[at++] = ".";
        }
        System.arraycopy(flags, 0, args, at, flags.length);
        return Main.commandLine().parseArgs(args).subcommand().commandSpec().userObject();
    }

    /** The runner options of {@link #of}. */
    static RunnerOptions runner(String command, String... flags) {
        Object user = of(command, flags);
        return user instanceof ExecCommand e ? e.runner : ((DaemonCommand) user).runner;
    }
}
