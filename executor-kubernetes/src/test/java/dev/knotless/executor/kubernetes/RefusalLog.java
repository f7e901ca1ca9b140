package dev.knotless.executor.kubernetes;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.slf4j.LoggerFactory;

/**
 * Collects every warning or error logged in this JVM while attached that tells of a verb the API
 * server refused ({@code forbidden}, {@code cannot deletecollection resource "pods"}): with the
 * scoped credentials the executor must never need more than its Role grants.
 */
final class RefusalLog extends AppenderBase<ILoggingEvent> {

    static final Pattern REFUSED = Pattern.compile("(?i)forbidden|cannot [a-z]+ resource");

    private final List<String> lines = new ArrayList<>();

    static RefusalLog attach() {
        RefusalLog log = new RefusalLog();
        log.setName("refusals");
        log.setContext((ch.qos.logback.classic.LoggerContext) LoggerFactory.getILoggerFactory());
        log.start();
        root().addAppender(log);
        return log;
    }

    @Override
    protected void append(ILoggingEvent event) {
        String line = event.getFormattedMessage() + (event.getThrowableProxy() == null ? "" : " " + event.getThrowableProxy().getMessage());
        if (event.getLevel().isGreaterOrEqual(Level.WARN) && REFUSED.matcher(line).find()) {
            lines.add(event.getLoggerName() + ": " + line);
        }
    }

    /** Detaches; the refusals seen meanwhile. */
    synchronized List<String> detach() {
        root().detachAppender(this);
        stop();
        return List.copyOf(lines);
    }

    private static Logger root() {
        return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }
}
