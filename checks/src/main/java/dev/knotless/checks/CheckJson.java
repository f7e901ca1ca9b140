package dev.knotless.checks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The one JSON form of a check, on disk and on stdout with {@code --json}. */
public final class CheckJson {

    private final ObjectMapper mapper = JsonMapper.builder()
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .build();

    /** One line, no trailing newline. */
    public String line(Check check) {
        try {
            return mapper.writeValueAsString(check);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public byte[] pretty(Check check) {
        try {
            return mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(check);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Check read(byte[] json) throws IOException {
        return mapper.readValue(json, Check.class);
    }
}
