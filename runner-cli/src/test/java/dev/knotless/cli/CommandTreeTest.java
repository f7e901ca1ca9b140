package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The partly built tree the launcher uses prints what the full tree prints. */
class CommandTreeTest {

    private static String usage(CommandLine cli) {
        return cli.getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    @Test
    void rootHelpFromStandInsIsTheFullTreesHelp() {
        assertThat(usage(Main.commandLineFor(new String[] {"--help"}))).isEqualTo(usage(Main.commandLine()));
        assertThat(usage(Main.commandLineFor(new String[0]))).isEqualTo(usage(Main.commandLine()));
    }

    @Test
    void theNamedSubcommandIsBuiltInFull() {
        CommandLine full = Main.commandLine();
        for (String name : full.getSubcommands().keySet()) {
            CommandLine lazy = Main.commandLineFor(new String[] {name, "--help"});
            assertThat(usage(lazy.getSubcommands().get(name))).as(name).isEqualTo(usage(full.getSubcommands().get(name)));
            assertThat(lazy.getSubcommands().get(name).getSubcommands().keySet()).as(name)
                    .isEqualTo(full.getSubcommands().get(name).getSubcommands().keySet());
        }
    }

    @Test
    void anUnknownCommandIsRefusedAsBefore() {
        assertThat(errorOf(Main.commandLineFor(new String[] {"exce"}), "exce"))
                .isEqualTo(errorOf(Main.commandLine(), "exce"));
    }

    private static String errorOf(CommandLine cli, String... args) {
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err));
        cli.execute(args);
        return err.toString();
    }
}
