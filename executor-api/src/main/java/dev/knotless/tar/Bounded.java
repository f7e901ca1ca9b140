package dev.knotless.tar;

import dev.knotless.executor.TransferLimitException;
import dev.knotless.time.Deadline;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.jspecify.annotations.Nullable;

/**
 * Streams that fail with {@link TransferLimitException} once more than {@code maxBytes} pass or
 * the deadline (monotonic: a wall clock step moves it not) is behind. A stalled peer is not detected here (no byte, no check): whoever owns
 * the connection closes it from a {@link dev.knotless.executor.StopSignal} listener.
 */
public final class Bounded {

    private Bounded() {}

    public static InputStream input(InputStream in, long maxBytes, @Nullable Deadline deadline, String what) {
        return new LimitedInput(in, new Budget(maxBytes, deadline, what));
    }

    public static OutputStream output(OutputStream out, long maxBytes, @Nullable Deadline deadline, String what) {
        return new LimitedOutput(out, new Budget(maxBytes, deadline, what));
    }

    /** Human form of a byte count: {@code 100 MiB}. */
    public static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int i = -1;
        while (v >= 1024 && i < units.length - 1) {
            v /= 1024;
            i++;
        }
        return (v == Math.rint(v) ? String.valueOf((long) v) : String.format("%.1f", v)) + " " + units[i];
    }

    private static final class Budget {
        private final long maxBytes;
        private final @Nullable Deadline deadline;
        private final String what;
        private long used;

        Budget(long maxBytes, @Nullable Deadline deadline, String what) {
            this.maxBytes = maxBytes;
            this.deadline = deadline;
            this.what = what;
        }

        void spend(long n) throws TransferLimitException {
            used += n;
            if (used > maxBytes) {
                throw new TransferLimitException(what + " is larger than its limit of " + bytes(maxBytes));
            }
            if (deadline != null && deadline.passed()) {
                throw new TransferLimitException(what + " did not finish before its deadline");
            }
        }
    }

    private static final class LimitedInput extends FilterInputStream {
        private final Budget budget;

        LimitedInput(InputStream in, Budget budget) {
            super(in);
            this.budget = budget;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                budget.spend(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                budget.spend(n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
            budget.spend(skipped);
            return skipped;
        }
    }

    private static final class LimitedOutput extends FilterOutputStream {
        private final Budget budget;

        LimitedOutput(OutputStream out, Budget budget) {
            super(out);
            this.budget = budget;
        }

        @Override
        public void write(int b) throws IOException {
            budget.spend(1);
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            budget.spend(len);
            out.write(b, off, len);
        }
    }
}
