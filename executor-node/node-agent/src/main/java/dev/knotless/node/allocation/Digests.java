package dev.knotless.node.allocation;

import dev.knotless.executor.toolkit.BlockInputStream;
import dev.knotless.executor.toolkit.BlockOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 of a payload, and streams that count and hash what passes through them (a transfer's answer). */
final class Digests {

    private Digests() {}

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(digest().digest(bytes));
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Counts and hashes what is read, and stops reading past {@code max}. */
    static final class Input extends BlockInputStream {
        private final InputStream in;
        private final long max;
        private final MessageDigest sha = digest();
        long count;
        volatile boolean over;

        Input(InputStream in, long max) {
            this.in = in;
            this.max = max;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                count += n;
                if (count > max) {
                    over = true;
                    throw new IOException("over the upload's limit of " + max + " bytes");
                }
                sha.update(b, off, n);
            }
            return n;
        }

        /**
         * As reading to the end and writing each read, but with the source's own buffers (a
         * channel stream hands over whole frames): counted, bounded and hashed as {@link #read} does.
         */
        @Override
        public long transferTo(OutputStream out) throws IOException {
            long before = count;
            in.transferTo(new OutputStream() {
                @Override
                public void write(int b) throws IOException {
                    write(new byte[] {(byte) b}, 0, 1);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    if (len <= 0) {
                        return;
                    }
                    count += len;
                    if (count > max) {
                        over = true;
                        throw new IOException("over the upload's limit of " + max + " bytes");
                    }
                    sha.update(b, off, len);
                    out.write(b, off, len);
                }
            });
            return count - before;
        }

        String hex() {
            return HexFormat.of().formatHex(sha.digest());
        }
    }

    /** Counts and hashes what is written. */
    static final class Output extends BlockOutputStream {
        private final OutputStream out;
        private final MessageDigest sha = digest();
        long count;

        Output(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            sha.update(b, off, len);
            count += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        String hex() {
            return HexFormat.of().formatHex(sha.digest());
        }
    }
}
