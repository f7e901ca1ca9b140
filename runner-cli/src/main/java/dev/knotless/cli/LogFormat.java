package dev.knotless.cli;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import dev.knotless.runner.daemon.DaemonLog;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/** How the daemon writes its log on stderr: {@code text} (a time and the line) or {@code json} (one object a line). */
enum LogFormat {
    text,
    json;

    /** The daemon's own lines, on {@code err}. */
    DaemonLog daemonLog(PrintWriter err) {
        return switch (this) {
            case text -> line -> err.println(Instant.now().truncatedTo(ChronoUnit.MILLIS) + " " + line);
            case json -> line -> err.println(JsonLogLine.format(Instant.now().truncatedTo(ChronoUnit.MILLIS), "INFO",
                    "daemon", line, MDC.getCopyOfContextMap(), null));
        };
    }

    /** Makes Logback's console lines (warnings and errors of the libraries) take this format too. */
    void applyToLogback() {
        if (this != json || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Appender<ILoggingEvent> appender = root.getAppender("STDERR");
        if (appender instanceof ConsoleAppender<ILoggingEvent> console) {
            JsonLogEncoder encoder = new JsonLogEncoder();
            encoder.setContext(context);
            encoder.start();
            console.stop();
            console.setEncoder(encoder);
            console.start();
        }
    }
}
