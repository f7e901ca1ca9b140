package dev.knotless.cli;

import java.util.Arrays;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Builds the picocli tree, fully (tests, the reference doc) or only as far as one command line needs.
 *
 * <p>Building a subcommand's model reflects over its options and mixins and loads the types of its
 * fields (stores, executors, Jackson trees): most of the time {@code knotless-run --help} took. The
 * root's command list needs only each subcommand's name and summary, which its {@code @Command}
 * annotation holds, so a subcommand that the arguments do not name gets a stand-in spec made from
 * that annotation alone.
 */
final class CommandTree {

    private CommandTree() {}

    /** Every command, built. */
    static CommandLine full() {
        return build(null, true);
    }

    /** The root, the subcommand {@code args} names built, the others as stand-ins. */
    static CommandLine forArgs(String[] args) {
        // The root has only -h and -V, so its first non-option argument is the subcommand's name.
        String named = Arrays.stream(args).filter(a -> !a.startsWith("-")).findFirst().orElse(null);
        return build(named, false);
    }

    private static CommandLine build(String named, boolean all) {
        CommandLine cli = new CommandLine(new KnotlessRunCommand());
        for (Class<?> type : KnotlessRunCommand.SUBCOMMANDS) {
            Command command = type.getAnnotation(Command.class);
            if (all || command.name().equals(named) || Arrays.asList(command.aliases()).contains(named)) {
                cli.addSubcommand(type);
            } else {
                cli.addSubcommand(command.name(), standIn(command), command.aliases());
            }
        }
        return cli;
    }

    /** What the root's command list shows of a subcommand, and nothing else. */
    private static CommandSpec standIn(Command command) {
        CommandSpec spec = CommandSpec.create().name(command.name());
        spec.usageMessage().header(command.header()).description(command.description()).hidden(command.hidden());
        return spec;
    }
}
