package dev.knotless.cli;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Output;
import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.OutputSink;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.tar.Printable;
import dev.knotless.time.Durations;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;

/**
 * Human output: live step logs with a {@code workflow/step │} prefix per line, runner notices, and
 * a summary table. Colours only on a terminal and never with {@code NO_COLOR} set.
 *
 * <p>Concurrency: methods are synchronized, so runs on several threads interleave by whole lines.
 */
final class Console implements RunListener {

    private final PrintWriter out;
    private final boolean colour;
    private final Map<String, ByteArrayOutputStream> partial = new HashMap<>();
    private final Map<String, String> stepNames = new HashMap<>();

    Console(PrintWriter out, boolean colour) {
        this.out = out;
        this.colour = colour;
    }

    static boolean colours() {
        return System.getenv("NO_COLOR") == null
                && !"dumb".equals(System.getenv("TERM"))
                && CommandLine.Help.Ansi.AUTO.enabled();
    }

    synchronized void line(String text) {
        println(paint("2", "knotless-run: " + text));
    }

    @Override
    public synchronized void runStarted(RunRequest run) {
        println(paint("1", "● " + run.workflow().name()) + paint("2", " @ " + shortSha(run.commit())
                + " (" + run.event().wireName() + ", " + run.image() + ", run " + run.runId() + ")"));
    }

    @Override
    public synchronized void notice(RunRequest run, String line) {
        println(paint("2", "  " + run.workflow().name() + " · " + line));
    }

    @Override
    public synchronized void stepStarted(RunRequest run, int number, String name) {
        stepNames.put(run.runId() + "/" + number, name);
    }

    @Override
    public synchronized void stepOutput(RunRequest run, int number, OutputSink.Stream stream, byte[] buffer, int offset, int length) {
        String key = run.runId() + "/" + number + "/" + stream;
        ByteArrayOutputStream pending = partial.computeIfAbsent(key, k -> new ByteArrayOutputStream());
        int start = offset;
        for (int i = offset; i < offset + length; i++) {
            if (buffer[i] == '\n') {
                pending.write(buffer, start, i - start);
                printLine(run, number, stream, pending);
                start = i + 1;
            }
        }
        pending.write(buffer, start, offset + length - start);
    }

    @Override
    public synchronized void stepFinished(RunRequest run, int number, StepResult result) {
        for (OutputSink.Stream s : OutputSink.Stream.values()) {
            ByteArrayOutputStream pending = partial.remove(run.runId() + "/" + number + "/" + s);
            if (pending != null && pending.size() > 0) {
                printLine(run, number, s, pending);
            }
        }
        String prefix = prefix(run, number);
        String took = Durations.human(result.durationMs());
        switch (result.status()) {
            case SUCCESS -> println(paint("32", prefix + " ✓ " + took + attempts(result)));
            case FAILURE -> println(result.continuedOnError()
                    ? paint("33", prefix + " ✗ " + result.reason() + ", continued on error (" + took + ")" + attempts(result))
                    : paint("31", prefix + " ✗ " + result.reason() + " (" + took + ")" + attempts(result)));
            case ERROR -> println(paint("31", prefix + " ! " + result.reason()));
            case CANCELLED -> println(paint("33", prefix + " ⊘ " + result.reason()));
            case SKIPPED -> { }
        }
    }

    /** ", attempt 3 of 3 (earlier: exit 1, exit 1)" for a step tried again, else nothing. */
    private static String attempts(StepResult result) {
        if (result.attempts().isEmpty()) {
            return "";
        }
        return ", attempt " + (result.attempts().size() + 1) + " (earlier: " + result.attempts().stream()
                .map(a -> a.exitCode() == null ? (a.reason() == null ? "?" : a.reason()) : "exit " + a.exitCode())
                .collect(java.util.stream.Collectors.joining(", ")) + ")";
    }

    @Override
    public synchronized void runFinished(RunRequest run, Check check) {
        String took = took(check);
        String text = switch (check.status()) {
            case SUCCESS -> paint("32", "✓ " + check.workflow() + " succeeded in " + took);
            case FAILURE -> paint("31", "✗ " + check.workflow() + " failed: " + check.reason());
            case ERROR -> paint("31", "! " + check.workflow() + " error: " + check.reason());
            case CANCELLED -> paint("33", "⊘ " + check.workflow() + " cancelled: " + check.reason());
            case SKIPPED -> paint("2", "↷ " + check.workflow() + " skipped: " + check.reason());
            default -> check.workflow() + " " + check.status().wireName();
        };
        println(text);
        if (check.tests() != null) {
            dev.knotless.checks.TestSummary t = check.tests();
            boolean bad = t.failures() + t.errors() > 0;
            println(paint(bad ? "31" : "2", "  tests " + (t.files() == 0 ? "none read" : t.line())));
            // failed tests first: what a reader of a red run looks for
            t.failed().stream().limit(5).forEach(f -> println(paint("31", "    ✗ " + Printable.name(f.qualifiedName())
                    + (f.message().isEmpty() ? "" : ": " + Printable.name(f.message().lines().findFirst().orElse(""))))));
            if (t.failures() + t.errors() > 5) {
                println(paint("2", "    … and " + (t.failures() + t.errors() - 5) + " more failed"));
            }
        }
        if (check.artifacts() != null) {
            println(paint("2", "  artifacts " + check.artifacts().paths().stream().map(Printable::name)
                    .collect(java.util.stream.Collectors.joining(", ")) + " (" + check.artifacts().bytes() + " B compressed)"));
        }
        for (Output o : check.outputs()) {
            println(paint("2", "  output " + Printable.name(o.name()) + " (" + o.mediaType() + ") " + o.path()));
        }
        println(paint("2", "  log " + check.log()));
    }

    synchronized void summary(List<Check> checks) {
        if (checks.isEmpty()) {
            return;
        }
        int w = Math.max(8, checks.stream().mapToInt(c -> c.workflow().length()).max().orElse(8));
        println();
        println(paint("1", String.format("%-10s %-" + w + "s %-6s %-8s %s", "STATUS", "WORKFLOW", "STEPS", "TIME", "CHECK / REASON")));
        for (Check c : checks) {
            long passed = c.steps().stream().filter(s -> s.status() == StepStatus.SUCCESS).count();
            String status = String.format("%-10s", c.status().wireName());
            println(paint(colourOf(c.status()), status) + String.format(" %-" + w + "s %-6s %-8s %s",
                    c.workflow(), passed + "/" + c.steps().size(), took(c),
                    c.id() + (c.reason() == null ? "" : "  " + c.reason())));
        }
    }

    private void printLine(RunRequest run, int number, OutputSink.Stream stream, ByteArrayOutputStream pending) {
        String text = pending.toString(StandardCharsets.UTF_8);
        pending.reset();
        String prefix = prefix(run, number) + " │ ";
        println(paint(stream == OutputSink.Stream.STDERR ? "33" : "36", prefix) + text);
    }

    private String prefix(RunRequest run, int number) {
        String step = stepNames.getOrDefault(run.runId() + "/" + number, String.valueOf(number));
        return run.workflow().name() + "/" + step;
    }

    private static String took(Check c) {
        if (c.startedAt() == null || c.finishedAt() == null) {
            return "-";
        }
        return Durations.human(Duration.between(c.startedAt(), c.finishedAt()).toMillis());
    }

    private static String colourOf(CheckStatus s) {
        return switch (s) {
            case SUCCESS -> "32";
            case CANCELLED -> "33";
            case SKIPPED -> "2";
            default -> "31";
        };
    }

    private static String shortSha(String sha) {
        return sha.length() > 12 ? sha.substring(0, 12) : sha;
    }

    private void println() {
        out.println();
        out.flush();
    }

    private void println(String text) {
        out.println(text);
        out.flush();
    }

    private String paint(String code, String text) {
        return colour ? "\u001b[" + code + "m" + text + "\u001b[0m" : text;
    }
}
