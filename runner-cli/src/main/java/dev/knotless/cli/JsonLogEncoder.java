package dev.knotless.cli;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** Logback events as {@link JsonLogLine}s, one per line, the stack trace in {@code error}. */
public final class JsonLogEncoder extends EncoderBase<ILoggingEvent> {

    @Override
    public byte[] headerBytes() {
        return null;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        IThrowableProxy thrown = event.getThrowableProxy();
        String line = JsonLogLine.format(Instant.ofEpochMilli(event.getTimeStamp()), event.getLevel().toString(),
                event.getLoggerName(), event.getFormattedMessage(), event.getMDCPropertyMap(),
                thrown == null ? null : ThrowableProxyUtil.asString(thrown));
        return (line + "\n").getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] footerBytes() {
        return null;
    }
}
