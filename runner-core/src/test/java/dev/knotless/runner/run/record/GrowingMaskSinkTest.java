package dev.knotless.runner.run.record;

import static dev.knotless.executor.OutputSink.Stream.STDERR;
import static dev.knotless.executor.OutputSink.Stream.STDOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.OutputSink;
import dev.knotless.secrets.Masker;
import dev.knotless.secrets.MaskingSink;
import dev.knotless.testkit.RecordingOutput;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A step's masking stream over masks that grow while it is open. */
class GrowingMaskSinkTest {

    static final String GRANTED = "granted-secret-value";

    @Test
    void aValueAddedWhileTheStreamIsOpenIsMaskedInWhatIsWrittenAfter() {
        Masks masks = new Masks(Masker.of(List.of(GRANTED)));
        RecordingOutput out = new RecordingOutput();
        try (MaskingSink sink = masks.newStream(out)) {
            write(sink, STDOUT, "added-value before\n");
            masks.add(List.of("added-value"));
            write(sink, STDOUT, "added-value after, " + GRANTED + "\n");
        }
        assertThat(out.stdout()).isEqualTo("added-value before\n*** after, ***\n");
    }

    @Test
    void aGrantedValueHalfWrittenOnTheOtherStreamWhenAValueIsAddedIsStillMasked() {
        Masks masks = new Masks(Masker.of(List.of(GRANTED)));
        RecordingOutput out = new RecordingOutput();
        try (MaskingSink sink = masks.newStream(out)) {
            write(sink, STDERR, "err: " + GRANTED.substring(0, 9));
            masks.add(List.of("added-value"));
            write(sink, STDOUT, "added-value\n");
            write(sink, STDERR, GRANTED.substring(9) + "\n");
        }
        assertThat(out.stderr()).isEqualTo("err: ***\n").doesNotContain("granted");
        assertThat(out.stdout()).isEqualTo("***\n");
    }

    @Test
    void withoutAddedValuesItCountsWhatItPassedAsOneMaskersStreamDoes() {
        Masks masks = new Masks(Masker.of(List.of(GRANTED)));
        try (MaskingSink grown = masks.newStream(new RecordingOutput());
             MaskingSink plain = Masker.of(List.of(GRANTED)).newStream(new RecordingOutput())) {
            for (String part : List.of("plain text\n", "gran", "ted-secret-value and more")) {
                write(grown, STDOUT, part);
                write(plain, STDOUT, part);
                assertThat(grown.passed(STDOUT)).as("after '%s'", part).isEqualTo(plain.passed(STDOUT));
            }
        }
    }

    @Test
    void valuesAddedTogetherAreBuiltIntoOneMaskerWhenNextAskedFor() {
        Masks masks = new Masks(Masker.none());
        masks.add(List.of("first-value"));
        masks.add(List.of("second-value", "ab"));
        Masker built = masks.masker();
        assertThat(built.mask("first-value second-value ab")).isEqualTo("*** *** ab");
        assertThat(masks.masker()).as("nothing added since: the same masker").isSameAs(built);
    }

    private static void write(OutputSink sink, OutputSink.Stream stream, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        sink.write(stream, bytes, 0, bytes.length);
    }
}
