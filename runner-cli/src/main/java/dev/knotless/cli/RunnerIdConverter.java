package dev.knotless.cli;

import dev.knotless.executor.RunnerId;
import picocli.CommandLine;

/** Reads a runner id option as records hold ids ({@link RunnerId}): refused while parsing, before anything is opened. */
final class RunnerIdConverter implements CommandLine.ITypeConverter<String> {

    @Override
    public String convert(String value) {
        try {
            return RunnerId.check(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
