package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link SecretScan} finds each form it promises, in texts, file contents and file names, and nothing else. */
class SecretScanTest {

    static final String VALUE = "s3cr3t-\"quote\"-\u00e9-tail";
    final SecretScan scan = SecretScan.of(List.of(VALUE));

    @Test
    void findsThePlainValueItsBase64AtEachOffsetAndItsJsonForms() {
        assertThat(scan.findIn("t", "x " + VALUE + " y")).anyMatch(f -> f.contains("plain"));
        for (String lead : List.of("", "a", "ab")) {
            String b64 = Base64.getEncoder().encodeToString((lead + VALUE + "!").getBytes(StandardCharsets.UTF_8));
            assertThat(scan.findIn("t", "auth=" + b64)).as("after %s", lead).anyMatch(f -> f.contains("base64"));
        }
        assertThat(scan.findIn("t", "{\"v\":\"s3cr3t-\\\"quote\\\"-\u00e9-tail\"}")).anyMatch(f -> f.contains("JSON-escaped"));
        assertThat(scan.findIn("t", "{\"v\":\"s3cr3t-\\\"quote\\\"-\\u00e9-tail\"}")).anyMatch(f -> f.contains("(ASCII)"));
        assertThat(scan.findIn("t", "s3cr3t-quote-e-tail and ***")).isEmpty();
    }

    @Test
    void findsTheValueInAFilesContentOrNameUnderADirectory(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("clean.txt"), "nothing here");
        assertThat(scan.findIn(dir)).isEmpty();
        Files.createDirectories(dir.resolve("a/b"));
        Files.writeString(dir.resolve("a/b/log.txt"), "token " + VALUE);
        Files.writeString(dir.resolve("key-" + VALUE), "x");
        assertThat(scan.findIn(dir)).anyMatch(f -> f.startsWith("a/b/log.txt: value 1 plain"))
                .anyMatch(f -> f.startsWith("the name key-"));
    }
}
