package dev.knotless.executor.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.GZIPInputStream;
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
    void compressibleFramesGoAsGzipMembersAndIncompressibleOnesRawThenUnexaminedForAWhile() throws IOException {
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        FramedUpload frames = new FramedUpload(sent, /* compress= */ true);
        byte[] text = "fn main() { println!(\"hello\"); }\n".repeat(40_000).getBytes(StandardCharsets.US_ASCII);
        byte[] text1 = Arrays.copyOf(text, FramedUpload.FRAME);
        byte[] noise = new byte[FramedUpload.FRAME];
        new Random(7).nextBytes(noise);
        frames.write(text1);
        frames.write(noise);
        frames.write(text1); // within the skip window after the miss: raw
        frames.finish();

        DataInputStream in = new DataInputStream(new ByteArrayInputStream(sent.toByteArray()));
        String first = line(in);
        assertThat(first).startsWith("z");
        byte[] member = in.readNBytes(Integer.parseInt(first.substring(1)));
        assertThat(new GZIPInputStream(new ByteArrayInputStream(member)).readAllBytes()).isEqualTo(text1);
        assertThat(line(in)).isEqualTo(String.valueOf(FramedUpload.FRAME));
        assertThat(in.readNBytes(FramedUpload.FRAME)).isEqualTo(noise);
        assertThat(line(in)).isEqualTo(String.valueOf(FramedUpload.FRAME));
        assertThat(in.readNBytes(FramedUpload.FRAME)).isEqualTo(text1);
        assertThat(line(in)).isEqualTo("0");
        assertThat(in.read()).isEqualTo(-1);
        assertThat(frames.sent()).isEqualTo(sent.size());
    }

    private static String line(DataInputStream in) throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            assertThat(c).isNotNegative();
            b.append((char) c);
        }
        return b.toString();
    }

    @Test
    void writesAfterAbortFail() {
        FramedUpload frames = new FramedUpload(new ByteArrayOutputStream());
        frames.abort();
        assertThatThrownBy(() -> frames.write(new byte[1])).isInstanceOf(IOException.class).hasMessageContaining("stopped");
    }
}
