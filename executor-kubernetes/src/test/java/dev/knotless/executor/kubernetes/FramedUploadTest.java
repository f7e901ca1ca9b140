package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FramedUploadTest {

    @Test
    void bytesArriveAsLengthPrefixedFramesEndedByZero() throws IOException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        FramedUpload frames = new FramedUpload(sent);
        byte[] data = new byte[FramedUpload.FRAME + 10];
        Arrays.fill(data, (byte) 'x');
        frames.write(data);
        frames.finish();
        String header = FramedUpload.FRAME + "\n";
        byte[] all = sent.toByteArray();
        assertThat(new String(all, 0, header.length(), StandardCharsets.US_ASCII)).isEqualTo(header);
        String tail = new String(all, header.length() + FramedUpload.FRAME, all.length - header.length() - FramedUpload.FRAME,
                StandardCharsets.US_ASCII);
        assertThat(tail).isEqualTo("10\nxxxxxxxxxx0\n");
    }

    @Test
    void anEmptyStreamIsJustTheEndMarker() throws IOException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        new FramedUpload(sent).finish();
        assertThat(sent.toString(StandardCharsets.US_ASCII)).isEqualTo("0\n");
    }

    @Test
    void writesAfterAbortFail() {
        FramedUpload frames = new FramedUpload(new ByteArrayOutputStream());
        frames.abort();
        assertThatThrownBy(() -> frames.write(new byte[1])).isInstanceOf(IOException.class).hasMessageContaining("stopped");
    }
}
