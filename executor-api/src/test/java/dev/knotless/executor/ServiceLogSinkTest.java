package dev.knotless.executor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ServiceLogSinkTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final OutputSink into = (stream, buffer, offset, length) -> out.write(buffer, offset, length);

    private static void write(OutputSink sink, OutputSink.Stream stream, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        sink.write(stream, b, 0, b.length);
    }

    @Test
    void everyLineIsPrefixedWithTheServiceNameAndALastLineIsEnded() {
        ServiceLogSink sink = new ServiceLogSink("db", into);
        write(sink, OutputSink.Stream.STDOUT, "ready to\n");
        write(sink, OutputSink.Stream.STDOUT, " accept");
        write(sink, OutputSink.Stream.STDERR, "warn\n");
        write(sink, OutputSink.Stream.STDOUT, " connections\nbye");
        sink.finish();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .isEqualTo("[db] ready to\n[db] warn\n[db]  accept connections\n[db] bye\n");
        assertThat(sink.cut()).isFalse();
    }

    @Test
    void outputPastTheCapIsDroppedWithOneLineSayingSo() {
        ServiceLogSink sink = new ServiceLogSink("web", into, 2048);
        String line = "x".repeat(99) + "\n";
        for (int i = 0; i < 100; i++) {
            write(sink, OutputSink.Stream.STDOUT, line);
        }
        sink.finish();
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).endsWith("[web] ... cut at 2 KiB\n");
        assertThat(text.lines().filter(l -> l.startsWith("[web] x")).count()).isEqualTo(21); // 20 whole, 1 cut short
        assertThat(sink.cut()).isTrue();
    }
}
