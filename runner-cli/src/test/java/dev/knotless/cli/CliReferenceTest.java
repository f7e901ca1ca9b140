package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * docs/reference/cli.md carries every command's help exactly as picocli prints it. When a flag
 * changes, run {@code scripts/cli-docs} to rewrite the generated part, then review the prose.
 */
class CliReferenceTest {

    static final String MARKER = "<!-- Everything below is generated from the commands' own help by scripts/cli-docs. -->";

    static Path reference() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("docs/reference"))) {
            dir = dir.getParent();
        }
        return dir.resolve("docs/reference/cli.md");
    }

    static String generated() {
        StringBuilder doc = new StringBuilder(MARKER).append("\n");
        append(doc, Main.commandLine());
        return doc.toString();
    }

    private static void append(StringBuilder doc, CommandLine cmd) {
        doc.append("\n## ").append(cmd.getCommandSpec().qualifiedName()).append("\n\n```text\n")
                .append(cmd.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing()).append("\n```\n");
        for (CommandLine sub : cmd.getSubcommands().values()) {
            append(doc, sub);
        }
    }

    @Test
    void theReferenceCarriesEveryCommandsHelpAsPicocliPrintsIt() throws Exception {
        Path file = reference();
        String text = Files.readString(file);
        if (Boolean.getBoolean("knotless.writeDocs")) {
            int at = text.indexOf(MARKER);
            text = (at < 0 ? text + "\n" : text.substring(0, at)) + generated();
            Files.writeString(file, text);
        }
        assertThat(text).as("docs/reference/cli.md is out of date: run scripts/cli-docs").contains(MARKER);
        assertThat(text.substring(text.indexOf(MARKER)))
                .as("docs/reference/cli.md is out of date: run scripts/cli-docs")
                .isEqualTo(generated());
    }
}
