package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

class JsonLogEncoderTest {

    @Test
    void aLogbackEventIsOneJsonLineWithTheMdcAndTheStackTrace() throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        MDC.put("run", "r-1");
        MDC.put("repo", "acme/web");
        try {
            LoggingEvent event = new LoggingEvent("x", context.getLogger("dev.knotless.runner.run.Run"), Level.WARN,
                    "run {} broke", new IOException("disk \"full\"\nreally"), new Object[] {"r-1"});
            JsonLogEncoder encoder = new JsonLogEncoder();
            encoder.setContext(context);
            encoder.start();
            String line = new String(encoder.encode(event), StandardCharsets.UTF_8);

            assertThat(line).endsWith("}\n");
            assertThat(line.strip()).doesNotContain("\n");
            JsonNode json = new ObjectMapper().readTree(line);
            assertThat(json.get("level").asText()).isEqualTo("WARN");
            assertThat(json.get("logger").asText()).isEqualTo("dev.knotless.runner.run.Run");
            assertThat(json.get("message").asText()).isEqualTo("run r-1 broke");
            assertThat(json.get("run").asText()).isEqualTo("r-1");
            assertThat(json.get("repo").asText()).isEqualTo("acme/web");
            assertThat(json.get("error").asText()).startsWith("java.io.IOException: disk \"full\"\nreally");
            assertThat(Instant.parse(json.get("time").asText())).isEqualTo(Instant.ofEpochMilli(event.getTimeStamp()));
        } finally {
            MDC.clear();
        }
    }

    @Test
    void mdcKeysCannotOverwriteTheFixedFields() throws Exception {
        String line = JsonLogLine.format(Instant.EPOCH, "INFO", "daemon", "hello", Map.of("message", "forged", "run", "r"), null);
        assertThat(line).isEqualTo("{\"time\":\"1970-01-01T00:00:00Z\",\"level\":\"INFO\",\"logger\":\"daemon\",\"message\":\"hello\",\"run\":\"r\"}");
    }
}
