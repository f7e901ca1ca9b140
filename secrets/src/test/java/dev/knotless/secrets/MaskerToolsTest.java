package dev.knotless.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Secrets as real tools print them (coreutils {@code base64}, {@code openssl base64}, {@code bash
 * -x}, Python's {@code shlex.quote} and {@code json.dumps}, {@code jq}, Jackson): the masked output
 * holds the value in none of its forms. Each case fails on a masker that knows only the plain,
 * unwrapped forms.
 */
class MaskerToolsTest {

    @TempDir
    Path dir;

    private final Random random = new Random(20261201);

    @Test
    void base64WrappedByCoreutilsAtAnyOffsetIsMasked() throws Exception {
        for (int length : new int[] {12, 33, 57, 90, 150, 220}) {
            for (int prefix = 0; prefix < 80; prefix += 7) {
                String secret = randomSecret(length);
                Path file = fileWithSecret(prefix, secret);
                String printed = run(List.of("base64", file.toString()), Map.of());
                assertMaskedInBase64(secret, printed, "coreutils base64, " + length + " bytes after " + prefix);
            }
        }
    }

    @Test
    void base64WrappedByOpensslAtAnyOffsetIsMasked() throws Exception {
        for (int length : new int[] {16, 48, 100, 200}) {
            for (int prefix = 0; prefix < 70; prefix += 11) {
                String secret = randomSecret(length);
                Path file = fileWithSecret(prefix, secret);
                String printed = run(List.of("openssl", "base64", "-in", file.toString()), Map.of());
                assertThat(printed).as("openssl wraps at 64").contains("\n");
                assertMaskedInBase64(secret, printed, "openssl base64, " + length + " bytes after " + prefix);
            }
        }
    }

    /**
     * The value in hex (as {@code od}, {@code xxd -p} or a digest tool's input shows it), percent-encoded
     * byte by byte (the {@code sed 's/../%&/g'} idiom over that hex) and escaped character by
     * character as JSON {@code \\u00XX}, each in both cases, by a real shell and coreutils.
     */
    @Test
    void hexPercentEncodedAndUnicodeEscapedFormsInBothCasesAreMasked() throws Exception {
        String secret = "tok-" + randomSecret(24);
        String script = """
                hex=$(printf %s "$1" | od -An -v -tx1 | tr -d ' \\n')
                echo "hex=$hex"
                echo "HEX=$(printf %s "$hex" | tr a-f A-F)"
                echo "pct=$(printf %s "$hex" | sed 's/../%&/g')"
                echo "PCT=$(printf %s "$hex" | tr a-f A-F | sed 's/../%&/g')"
                echo "json=\\"$(printf %s "$hex" | sed 's/../\\\\u00&/g')\\""
                echo "JSON=\\"$(printf %s "$hex" | tr a-f A-F | sed 's/../\\\\u00&/g')\\""
                """;
        String printed = run(List.of("sh", "-c", script, "_", secret), Map.of());
        String hex = java.util.HexFormat.of().formatHex(secret.getBytes(StandardCharsets.UTF_8));
        assertThat(printed).as("the tools printed every form").contains("hex=" + hex, "HEX=" + hex.toUpperCase(),
                "pct=%" + hex.substring(0, 2) + "%", "json=\"\\u00" + hex.substring(0, 2), "JSON=\"\\u00");

        String masked = Masker.of(List.of(secret)).mask(printed);

        assertThat(masked.lines()).containsExactly("hex=***", "HEX=***", "pct=***", "PCT=***", "json=\"***\"", "JSON=\"***\"");
    }

    @Test
    void bashXTraceQuotingOfAValueWithQuotesIsMasked() throws Exception {
        String secret = "it's-a'secret\"x";
        String printed = run(List.of("bash", "-xc", "v=\"$1\"; : \"$v\"", "_", secret), Map.of());
        assertThat(printed).as("bash -x splits the quote").contains("'\\''");
        String masked = Masker.of(List.of(secret)).mask(printed);
        assertThat(masked).doesNotContain("secret").contains("***");
    }

    @Test
    void pythonShlexQuotingIsMasked() throws Exception {
        String secret = "pa'ss'word-42";
        String printed = run(List.of("python3", "-c", "import shlex,sys; print('cmd --token ' + shlex.quote(sys.argv[1]))", secret), Map.of());
        assertThat(printed).contains("'\"'\"'");
        assertThat(Masker.of(List.of(secret)).mask(printed)).doesNotContain("ss").contains("cmd --token '***'");
    }

    @Test
    void jsonAsJqPythonAndJacksonWriteItIsMasked() throws Exception {
        String secret = "tok\"en\\with\ttab/slash-é-<>&";
        Masker masker = Masker.of(List.of(secret));
        List<String> printed = new ArrayList<>();
        printed.add(run(List.of("jq", "-cn", "--arg", "v", secret, "{token: $v}"), Map.of()));
        printed.add(run(List.of("python3", "-c", "import json,sys; print(json.dumps({'token': sys.argv[1]}))", secret), Map.of()));
        printed.add(run(List.of("python3", "-c", "import json,sys; print(json.dumps({'token': sys.argv[1]}, ensure_ascii=False))", secret), Map.of()));
        printed.add(new ObjectMapper().writeValueAsString(Map.of("token", secret)));
        for (String line : printed) {
            assertThat(line).as("the tool escaped the value").doesNotContain(secret);
            assertThat(masker.mask(line)).as(line).isEqualTo("{\"token\":\"***\"}".replace(":", line.contains(": ") ? ": " : ":") + (line.endsWith("\n") ? "\n" : ""));
        }
    }

    @Test
    void goStyleHtmlSafeEscapesAreMasked() {
        String secret = "a<b>&c-long-enough";
        assertThat(JsonEscape.HTML_SAFE.body(secret)).isEqualTo("a\\u003cb\\u003e\\u0026c-long-enough");
        assertThat(Masker.of(List.of(secret)).mask("{\"t\":\"a\\u003cb\\u003e\\u0026c-long-enough\"}")).isEqualTo("{\"t\":\"***\"}");
    }

    /**
     * A value with colour sequences inside it, as {@code grep --color=always} prints a line whose
     * middle matched and as {@code printf} with {@code \e[} prints one: masked as one run, the
     * sequences inside it included, the colour reset after it kept.
     */
    @Test
    void aValueColouredInsideByGrepOrPrintfIsMasked() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/grep")) || Files.isExecutable(Path.of("/bin/grep")), "grep");
        String secret = randomSecret(24);
        Masker masker = Masker.of(List.of(secret));
        for (int from = 1; from < 20; from += 6) {
            String grepped = run(List.of("sh", "-c", "printf '%s\\n' \"$1\" | grep --color=always -e \"$2\"",
                    "sh", "line " + secret + " end", secret.substring(from, from + 4)), Map.of());
            assertThat(grepped).as("grep coloured the match").contains("\u001b[").doesNotContain(secret);
            assertThat(masker.mask(grepped)).as(grepped).isEqualTo("line *** end\n");
        }
        String printed = run(List.of("bash", "-c", "printf '%s\\e[1m%s\\e[0m\\n' \"$1\" \"$2\"",
                "bash", secret.substring(0, 9), secret.substring(9)), Map.of());
        assertThat(printed).isEqualTo(secret.substring(0, 9) + "\u001b[1m" + secret.substring(9) + "\u001b[0m\n");
        assertThat(masker.mask(printed)).isEqualTo("***\u001b[0m\n");
    }

    /** Not one base64 alignment of the value is left, once the wrapping newlines are taken out. */
    private static void assertMaskedInBase64(String secret, String printed, String what) {
        byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
        String unwrapped = printed.replace("\n", "");
        boolean present = false;
        for (int shift = 0; shift < 3; shift++) {
            present |= unwrapped.contains(Masker.base64Core(bytes, shift));
        }
        assertThat(present).as("%s: the tool's output holds the value's base64", what).isTrue();
        String masked = Masker.of(List.of(secret)).mask(printed).replace("\n", "");
        for (int shift = 0; shift < 3; shift++) {
            assertThat(masked).as("%s, alignment %d", what, shift).doesNotContain(Masker.base64Core(bytes, shift));
        }
    }

    private Path fileWithSecret(int prefix, String secret) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < prefix; i++) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        Path file = Files.createTempFile(dir, "secret", ".txt");
        Files.writeString(file, b + secret + "\nmore text after the value\n");
        return file;
    }

    private String randomSecret(int length) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        StringBuilder b = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            b.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return b.toString();
    }

    private static String run(List<String> command, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process process = builder.start();
        byte[] out = process.getInputStream().readAllBytes();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(String.join(" ", command)).isZero();
        return new String(out, StandardCharsets.UTF_8);
    }
}
