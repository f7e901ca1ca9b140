package dev.knotless.cli;

import dev.knotless.time.Durations;
import java.time.Duration;
import picocli.CommandLine;

/** Reads a {@code DURATION} option as workflows write durations ({@link Durations#parse}: 90s, 10m, 1h30m). */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        try {
            return Durations.parse(value);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new CommandLine.TypeConversionException(
                    e instanceof ArithmeticException ? "too long a duration: '" + value + "'" : e.getMessage());
        }
    }
}
