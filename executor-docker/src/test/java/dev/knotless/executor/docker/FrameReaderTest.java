package dev.knotless.executor.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.testkit.RecordingOutput;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FrameReaderTest {

    private static void frame(ByteArrayOutputStream out, int stream, String payload) {
        byte[] p = payload.getBytes(StandardCharsets.UTF_8);
        out.writeBytes(new byte[] {(byte) stream, 0, 0, 0, (byte) (p.length >>> 24), (byte) (p.length >>> 16),
                (byte) (p.length >>> 8), (byte) p.length});
        out.writeBytes(p);
    }

    @Test
    void framesAreSplitIntoStdoutAndStderr() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        frame(bytes, 1, "out one\n");
        frame(bytes, 2, "err\n");
        frame(bytes, 1, "x".repeat(100_000));
        RecordingOutput sink = new RecordingOutput();
        FrameReader.copy(new ByteArrayInputStream(bytes.toByteArray()), sink);
        assertThat(sink.stdout()).isEqualTo("out one\n" + "x".repeat(100_000));
        assertThat(sink.stderr()).isEqualTo("err\n");
    }

    @Test
    void aStreamCutInsideAFrameIsAnErrorNotAnEnd() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        frame(bytes, 1, "complete");
        frame(bytes, 1, "cut short");
        byte[] cut = java.util.Arrays.copyOf(bytes.toByteArray(), bytes.size() - 3);
        assertThatThrownBy(() -> FrameReader.copy(new ByteArrayInputStream(cut), new RecordingOutput()))
                .isInstanceOf(EOFException.class);
    }
}
