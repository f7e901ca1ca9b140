package dev.knotless.cli;

import picocli.CommandLine.Option;

/** {@code --json} of the commands that list rows: one flag, so scripts ask every list the same way. */
final class JsonArrayOption {

    @Option(names = "--json", description = "One JSON array instead of a table.")
    boolean json;
}
