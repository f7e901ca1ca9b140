package dev.knotless.runner.run.step.protocol;

import static dev.knotless.executor.OutputSink.Stream.STDERR;
import static dev.knotless.executor.OutputSink.Stream.STDOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.OutputSink;
import dev.knotless.testkit.RecordingOutput;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A step's output through the command reader: every byte passes, and the lines that may be commands are handed over whole. */
class CommandLinesTest {

    /** Records the lines handed over; blanks what follows {@code BLANK:} in them, as a mask that could not hide a value. */
    static final class Seen implements CommandLines.Lines {
        final List<String> lines = new ArrayList<>();
        int overlong;

        @Override
        public void line(byte[] bytes, int length) {
            String line = new String(bytes, 0, length, StandardCharsets.UTF_8);
            lines.add(line);
            int at = line.indexOf("BLANK:");
            if (at >= 0) {
                Arrays.fill(bytes, at + 6, length, (byte) '*');
            }
        }

        @Override
        public int overlong(byte[] bytes, int length) {
            overlong++;
            return new String(bytes, 0, 8, StandardCharsets.ISO_8859_1).equals("::blank:") ? 8 : -1;
        }
    }

    @Test
    void everyByteComesOutInOrderAndTheLinesThatMayBeCommandsAreHandedOverWhole() {
        String text = "plain line\n  ::group::Build\r\nx ##[error]bad\n::debug::last without newline";
        for (int cut = 0; cut <= text.length(); cut++) {
            Seen seen = new Seen();
            RecordingOutput out = new RecordingOutput();
            CommandLines lines = new CommandLines(out, seen);
            write(lines, STDOUT, text.substring(0, cut));
            write(lines, STDOUT, text.substring(cut));
            lines.flush();
            assertThat(out.stdout()).as("cut at %d", cut).isEqualTo(text);
            assertThat(seen.lines).as("cut at %d", cut).containsExactly("  ::group::Build", "##[error]bad",
                    "::debug::last without newline");
        }
    }

    @Test
    void textThatCannotBeACommandPassesAtOnceSoAPromptShowsWhileTheStepWaits() {
        Seen seen = new Seen();
        RecordingOutput out = new RecordingOutput();
        CommandLines lines = new CommandLines(out, seen);
        write(lines, STDOUT, "Password: ");
        assertThat(out.stdout()).isEqualTo("Password: ");
        write(lines, STDOUT, "\n::add-mask::wai");
        assertThat(out.stdout()).as("a line that may be a command is held until it ends").isEqualTo("Password: \n");
        write(lines, STDOUT, "ting x # y ## z ###[w");
        assertThat(out.stdout()).isEqualTo("Password: \n");
        write(lines, STDOUT, "\nhash # and ##");
        assertThat(out.stdout()).as("of a line that cannot begin with a command, only a # that may begin ##[ is held")
                .isEqualTo("Password: \n::add-mask::waiting x # y ## z ###[w\nhash # and ");
        assertThat(seen.lines).containsExactly("::add-mask::waiting x # y ## z ###[w");
    }

    @Test
    void aLineMayEndInACarriageReturnAndEachStreamHasItsOwnLine() {
        Seen seen = new Seen();
        RecordingOutput out = new RecordingOutput();
        CommandLines lines = new CommandLines(out, seen);
        write(lines, STDOUT, "::warning::on stdout");
        write(lines, STDERR, "::error::on stderr\r");
        write(lines, STDOUT, "\rprogress 50%\r::notice::after");
        lines.flush();
        assertThat(seen.lines).containsExactly("::error::on stderr", "::warning::on stdout", "::notice::after");
        assertThat(out.stdout()).isEqualTo("::warning::on stdout\rprogress 50%\r::notice::after");
        assertThat(out.stderr()).isEqualTo("::error::on stderr\r");
    }

    @Test
    void whatALineHandlerBlanksIsBlankedInPlaceByteForByte() {
        Seen seen = new Seen();
        RecordingOutput out = new RecordingOutput();
        CommandLines lines = new CommandLines(out, seen);
        write(lines, STDOUT, "::add-mask::BLANK:s3cret\nnext\n");
        assertThat(out.stdout()).isEqualTo("::add-mask::BLANK:******\nnext\n");
    }

    @Test
    void aLineLongerThanItsBoundIsReadNoFurtherAndPassesOrIsBlankedToItsEnd() {
        Seen seen = new Seen();
        RecordingOutput out = new RecordingOutput();
        CommandLines lines = new CommandLines(out, seen);
        String longData = "y".repeat(CommandLines.MOST + 10);
        write(lines, STDOUT, "::error::" + longData + "\n::blank:" + longData + "\n::debug::short\n");
        lines.flush();
        assertThat(seen.overlong).isEqualTo(2);
        assertThat(seen.lines).containsExactly("::debug::short");
        String[] got = out.stdout().split("\n");
        assertThat(got[0]).isEqualTo("::error::" + longData);
        assertThat(got[1]).isEqualTo("::blank:" + "*".repeat(longData.length()));
        assertThat(out.stdout()).hasSize(("::error::" + longData + "\n::blank:" + longData + "\n::debug::short\n").length());
    }

    private static void write(OutputSink sink, OutputSink.Stream stream, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        sink.write(stream, bytes, 0, bytes.length);
    }
}
