package dev.knotless.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that only holds subcommands. Named alone it prints its usage and succeeds, rather than
 * failing as picocli would for a command with nothing to run, so the list of what it holds is one
 * word away.
 */
abstract class CommandGroup implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public final void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
