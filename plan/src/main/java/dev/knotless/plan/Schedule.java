package dev.knotless.plan;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a workflow's {@code on.schedule}: a five-field cron expression (minute, hour, day of
 * month, month, day of week, as crontab(5) has them), read in {@code zone}, and the branches it runs
 * on.
 *
 * @param cron the expression as written, such as {@code 0 3 * * 1-5}
 * @param branches exact branch names; empty for the repository's default branch
 */
public record Schedule(String cron, ZoneId zone, List<String> branches) {

    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

    public Schedule {
        Objects.requireNonNull(cron, "cron");
        Objects.requireNonNull(zone, "zone");
        branches = List.copyOf(branches);
        parse(cron);
    }

    /**
     * The parsed expression.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    static Cron parse(String cron) {
        String[] fields = cron.strip().split("\\s+");
        if (fields.length != 5) {
            throw new IllegalArgumentException("'" + cron + "' has " + fields.length
                    + " field(s); a schedule has five: minute hour day-of-month month day-of-week, such as \"0 3 * * 1-5\"");
        }
        try {
            return PARSER.parse(cron.strip()).validate();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + cron + "' is not a cron expression: " + e.getMessage());
        }
    }

    /** The first due time strictly after {@code after}; empty if the expression never comes again. */
    public Optional<Instant> next(Instant after) {
        return execution().nextExecution(ZonedDateTime.ofInstant(after, zone)).map(ZonedDateTime::toInstant);
    }

    /** The latest due time at or before {@code notAfter}; empty if there is none. */
    public Optional<Instant> latest(Instant notAfter) {
        // lastExecution is strictly before its argument; a due time on the very second counts.
        return execution().lastExecution(ZonedDateTime.ofInstant(notAfter.plusSeconds(1), zone))
                .map(ZonedDateTime::toInstant)
                .filter(t -> !t.isAfter(notAfter));
    }

    /** A short key naming this entry among a workflow's schedules, for the record of what has run. */
    public String key() {
        return cron.strip().replaceAll("\\s+", " ") + " " + zone.getId();
    }

    private ExecutionTime execution() {
        return ExecutionTime.forCron(parse(cron));
    }
}
