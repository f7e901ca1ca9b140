package dev.knotless.node.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DigestsTest {

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    @Test
    void transferToCountsAndHashesAsReadingDoes() throws IOException {
        byte[] data = bytes(300_000);
        Digests.Input read = new Digests.Input(new ByteArrayInputStream(data), data.length);
        ByteArrayOutputStream viaRead = new ByteArrayOutputStream();
        byte[] buffer = new byte[7000];
        for (int n; (n = read.read(buffer, 0, buffer.length)) >= 0; ) {
            viaRead.write(buffer, 0, n);
        }
        Digests.Input moved = new Digests.Input(new ByteArrayInputStream(data), data.length);
        ByteArrayOutputStream viaTransfer = new ByteArrayOutputStream();
        // A first read, then the rest: both paths count into the same total and digest.
        moved.read(buffer, 0, 10);
        viaTransfer.write(buffer, 0, 10);
        assertThat(moved.transferTo(viaTransfer)).isEqualTo(data.length - 10);

        assertThat(viaTransfer.toByteArray()).isEqualTo(data).isEqualTo(viaRead.toByteArray());
        assertThat(moved.count).isEqualTo(read.count).isEqualTo(data.length);
        assertThat(moved.hex()).isEqualTo(read.hex()).isEqualTo(Digests.sha256(data));
        assertThat(moved.over).isFalse();
    }

    @Test
    void transferToStopsPastTheLimitWithoutPassingThoseBytesOn() {
        byte[] data = bytes(100_000);
        Digests.Input in = new Digests.Input(new ByteArrayInputStream(data), 50_000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThatThrownBy(() -> in.transferTo(out)).isInstanceOf(IOException.class).hasMessageContaining("limit of 50000");
        assertThat(in.over).isTrue();
        assertThat(out.size()).isLessThanOrEqualTo(50_000);
    }

    @Test
    void aFailingDestinationFailsTheTransfer() {
        Digests.Input in = new Digests.Input(new ByteArrayInputStream(bytes(10_000)), 1L << 40);
        assertThatThrownBy(() -> in.transferTo(new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("pipe closed");
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                throw new IOException("pipe closed");
            }
        })).hasMessage("pipe closed");
    }
}
