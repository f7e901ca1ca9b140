package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sends payloads through real shells, dash ({@code /bin/sh}) and BusyBox ash, and checks that the
 * step sees exactly the stored bytes: the step writes each variable with {@code printf '%s'} to a
 * file, and the file is compared with the value's UTF-8 bytes.
 */
class ShellPayloadThroughShellTest {

    enum Shell {
        DASH(List.of("/bin/sh")),
        BUSYBOX(List.of("/bin/busybox", "sh"));

        final List<String> argv;

        Shell(List<String> argv) {
            this.argv = argv;
        }

        /** A step command run by this shell. */
        List<String> step(String script) {
            List<String> command = new ArrayList<>(argv);
            command.add("-c");
            command.add(script);
            return command;
        }
    }

    /** How the payload reaches the shell. */
    enum Delivery {
        /** {@link ShellPayload#build} on the shell's stdin, which is then closed. */
        PLAIN_STDIN_CLOSED,
        /** {@link ShellPayload#framed} to {@link ShellPayload#receiver}, stdin left open. */
        FRAMED_STDIN_LEFT_OPEN
    }

    @TempDir
    Path dir;

    static Stream<Arguments> hostileValues() {
        Random random = new Random(20240601);
        List<Arguments> rows = new ArrayList<>();
        Object[][] table = {
            {"single quotes", "it's 'quoted' '' '\\''"},
            {"only a quote", "'"},
            {"double quotes", "say \"hi\" \"\""},
            {"newlines", "line one\nline two\n\nline four"},
            {"trailing newlines", "value\n\n\n"},
            {"leading newline and CR LF", "\nwindows\r\nline\r\n"},
            {"command substitution", "$(touch MARKER) $(id -u)"},
            {"backticks", "`touch MARKER` `id`"},
            {"parameter expansion", "$HOME ${PATH} $1 $@ $* $$ $? ${V:-x} $((1+2))"},
            {"backslashes", "\\ \\\\ \\n \\t \\' \\\" \\$ trailing\\"},
            {"percent and printf formats", "%s %d %% %n %b \\x41 \\101"},
            {"unicode", "ünïcödé 😀 日本語 \u2028 \u00a0 \uFEFF"},
            {"control characters", "\t\u001b[31mred\u001b[0m\u0007\u0001\u007f"},
            {"brace group lines", "\n}\n{\nexec evil\n}\n"},
            {"heredoc and eval bait", "EOF\n'EOF'\n;eval x;exit 3 && || | & > < #"},
            {"leading dash", "-n -e --"},
            {"spaces only", "   "},
            {"empty", ""},
            {"glob characters", "* ? [a-z] ~ ~root"},
            {"high bytes of latin-1", "\u00ff\u00fe\u0080"},
            {"a 127 KiB value (the largest one environment string holds)", hostile(random, Environment.MAX_ENTRY - 3 - 4 * 4)},
        };
        for (Shell shell : Shell.values()) {
            for (Delivery delivery : Delivery.values()) {
                for (Object[] row : table) {
                    rows.add(Arguments.of(shell, delivery, row[0], row[1]));
                }
            }
        }
        return rows.stream();
    }

    @ParameterizedTest(name = "{0} {1}: {2}")
    @MethodSource("hostileValues")
    void theStepSeesExactlyTheStoredBytes(Shell shell, Delivery delivery, String label, String value) throws Exception {
        Path marker = dir.resolve("MARKER");
        String stored = value.replace("MARKER", marker.toString());
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("OUT", dir.toString());
        environment.put("V", stored);

        Result result = run(shell, delivery, environment, shell.step("printf '%s' \"$V\" > \"$OUT/V\""));

        assertThat(result.exit()).as("exit; stderr: %s", result.stderr()).isZero();
        assertThat(Files.readAllBytes(dir.resolve("V"))).isEqualTo(stored.getBytes(StandardCharsets.UTF_8));
        assertThat(marker).doesNotExist();
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void aPayloadOver256KiBOfLargeValuesArrivesExactly(Shell shell) throws Exception {
        Random random = new Random(7);
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("OUT", dir.toString());
        environment.put("V1", hostile(random, 100_000));
        environment.put("V2", hostile(random, 100_000));
        environment.put("V3", hostile(random, 100_000));
        assertThat(ShellPayload.framed(environment, List.of("x")).length).isGreaterThan(256 * 1024);

        for (Delivery delivery : Delivery.values()) {
            Result result = run(shell, delivery, environment, shell.step(
                    "for v in V1 V2 V3; do eval \"printf '%s' \\\"\\$$v\\\"\" > \"$OUT/$v\"; done"));

            assertThat(result.exit()).as("%s exit; stderr: %s", delivery, result.stderr()).isZero();
            for (String name : List.of("V1", "V2", "V3")) {
                assertThat(Files.readAllBytes(dir.resolve(name))).as("%s %s", delivery, name)
                        .isEqualTo(environment.get(name).getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void manyRandomHostileValuesArriveExactlyInOneStep(Shell shell) throws Exception {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("OUT", dir.toString());
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            names.add("R" + i);
            environment.put("R" + i, hostile(random, random.nextInt(200)));
        }
        String script = "for v in " + String.join(" ", names)
                + "; do eval \"printf '%s' \\\"\\$$v\\\"\" > \"$OUT/$v\"; done";

        for (Delivery delivery : Delivery.values()) {
            Result result = run(shell, delivery, environment, shell.step(script));

            assertThat(result.exit()).as("seed %s %s; stderr: %s", seed, delivery, result.stderr()).isZero();
            for (String name : names) {
                assertThat(Files.readAllBytes(dir.resolve(name))).as("seed %s %s %s", seed, delivery, name)
                        .isEqualTo(environment.get(name).getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void oneValueOf256KiBIsRefusedBecauseLinuxCannotPassItToAProcess() throws Exception {
        String big = "x".repeat(256 * 1024);

        assertThatIllegalArgumentException()
                .isThrownBy(() -> ShellPayload.build(Map.of("BIG", big), List.of("true")))
                .withMessage("variable BIG is 262149 bytes; Linux allows at most 131072 bytes for one environment variable including its name (pass large data as a file)");
        ProcessBuilder direct = new ProcessBuilder("/bin/true");
        direct.environment().put("BIG", big);
        assertThatThrownBy(direct::start).isInstanceOf(IOException.class).hasMessageContaining("Argument list too long");
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void aStepThatReadsStdinSeesEndOfFileAlthoughTheTransportKeepsItOpen(Shell shell) throws Exception {
        Result result = run(shell, Delivery.FRAMED_STDIN_LEFT_OPEN, Map.of("OUT", dir.toString()),
                shell.step("cat > \"$OUT/stdin\"; echo done > \"$OUT/done\""));

        assertThat(result.exit()).isZero();
        assertThat(dir.resolve("stdin")).isEmptyFile();
        assertThat(dir.resolve("done")).exists();
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void theStepsExitStatusComesThrough(Shell shell) throws Exception {
        for (Delivery delivery : Delivery.values()) {
            assertThat(run(shell, delivery, Map.of(), shell.step("exit 7")).exit()).as("%s", delivery).isEqualTo(7);
        }
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void aFrameCutShortRunsNothingAndExits125(Shell shell) throws Exception {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("A", "first");
        environment.put("B", "second\n}\n");
        Path marker = dir.resolve("ran");
        byte[] frame = ShellPayload.framed(environment, shell.step("touch " + marker));
        String text = new String(frame, StandardCharsets.UTF_8);
        List<Integer> cuts = List.of(0, 1, text.indexOf('\n'), text.indexOf('\n') + 1,
                text.indexOf("export B"), text.indexOf("}\n") + 2, text.indexOf("exec") + 8, frame.length - 2, frame.length - 1);

        for (int cut : cuts) {
            byte[] partial = java.util.Arrays.copyOf(frame, cut);
            Result result = exec(ShellPayload.receiver(shell.argv), Map.of(), partial, /* closeStdin= */ true);

            assertThat(marker).as("cut at %d", cut).doesNotExist();
            if (text.substring(0, cut).endsWith("\n}\n")) {
                // Cut inside B's value just after its own "}" line: the length check cannot tell,
                // but the unterminated quote is a syntax error, so still nothing runs.
                assertThat(result.exit()).as("cut at %d", cut).isNotZero();
            } else {
                assertThat(result.exit()).as("cut at %d; stderr %s", cut, result.stderr())
                        .isEqualTo(ShellPayload.TRUNCATED_EXIT);
                assertThat(result.stderr()).startsWith("step payload: ");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Shell.class)
    void aPlainPayloadCutShortRunsNothing(Shell shell) throws Exception {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("A", "first");
        environment.put("B", "second");
        Path marker = dir.resolve("ran");
        String payload = ShellPayload.build(environment, shell.step("touch " + marker));
        List<Integer> cuts = List.of(2, payload.indexOf("export B"), payload.indexOf("exec") + 8, payload.length() - 2);

        for (int cut : cuts) {
            Result result = exec(shell.argv, Map.of(),
                    payload.substring(0, cut).getBytes(StandardCharsets.UTF_8), /* closeStdin= */ true);

            assertThat(result.exit()).as("cut at %d", cut).isNotZero();
            assertThat(marker).as("cut at %d", cut).doesNotExist();
        }
    }

    // --- helpers ---

    record Result(int exit, String stderr) {}

    private Result run(Shell shell, Delivery delivery, Map<String, String> environment, List<String> command)
            throws Exception {
        return switch (delivery) {
            case PLAIN_STDIN_CLOSED -> exec(shell.argv, Map.of(),
                    ShellPayload.build(environment, command).getBytes(StandardCharsets.UTF_8), true);
            case FRAMED_STDIN_LEFT_OPEN -> exec(ShellPayload.receiver(shell.argv), Map.of(),
                    ShellPayload.framed(environment, command), false);
        };
    }

    /** Runs argv with a bare environment, writes stdin, waits up to 30 s for the exit. */
    private Result exec(List<String> argv, Map<String, String> environment, byte[] stdin, boolean closeStdin)
            throws Exception {
        Path err = Files.createTempFile(dir, "stderr", ".txt");
        ProcessBuilder builder = new ProcessBuilder(argv)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(err.toFile());
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/local/bin:/usr/bin:/bin");
        builder.environment().putAll(environment);
        Process process = builder.start();
        OutputStream in = process.getOutputStream();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                in.write(stdin);
                in.flush();
                if (closeStdin) {
                    in.close();
                }
            } catch (IOException e) {
                // The shell exited before reading everything; its exit status tells the story.
            }
        });
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the shell did not exit within 30 s; stdin open=" + !closeStdin);
            }
            writer.get(30, TimeUnit.SECONDS); // the shell has exited: writing ends at once; 30 s catch a hang
            return new Result(process.exitValue(), Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            in.close();
            Files.deleteIfExists(err);
        }
    }

    private static final String ALPHABET =
            "aZ09 '\"`$\\%!#&*()[]{}<>|;:,.?~^-+=@\n\r\t\u001b\u007fé日😀\u2028\u00a0";

    /** Random text of about {@code length} UTF-8 bytes drawn from shell-hostile characters. */
    static String hostile(Random random, int bytes) {
        StringBuilder out = new StringBuilder(bytes);
        int size = 0;
        int[] points = ALPHABET.codePoints().toArray();
        while (true) {
            int cp = points[random.nextInt(points.length)];
            int width = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length;
            if (size + width > bytes) {
                return out.toString();
            }
            out.appendCodePoint(cp);
            size += width;
        }
    }
}
