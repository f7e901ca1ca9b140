package dev.knotless.atproto.repo;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/** Unsigned LEB128 varints, as CAR framing, CIDs and multicodec prefixes use them. */
final class Varint {

    private Varint() {}

    /** Reads varints and raw bytes from a slice of an array, never past its end. */
    static final class Reader {
        private final byte[] array;
        private final int end;
        private int pos;

        Reader(byte[] array, int start, int end) {
            this.array = array;
            this.pos = start;
            this.end = end;
        }

        int position() {
            return pos;
        }

        boolean atEnd() {
            return pos >= end;
        }

        byte[] array() {
            return array;
        }

        /** One varint of at most 63 bits, minimally encoded (the multiformats rule: one value, one encoding). */
        long next(String what) throws ProofException {
            long value = 0;
            for (int shift = 0; shift < 63; shift += 7) {
                if (pos >= end) {
                    throw new ProofException(what + " is cut short");
                }
                int b = array[pos++] & 0xff;
                value |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    if (b == 0 && shift > 0) {
                        throw new ProofException(what + " is not minimally encoded");
                    }
                    return value;
                }
            }
            throw new ProofException(what + " is too long a varint");
        }

        byte[] bytes(int n, String what) throws ProofException {
            if (n < 0 || n > end - pos) {
                throw new ProofException(what + " is cut short");
            }
            byte[] b = Arrays.copyOfRange(array, pos, pos + n);
            pos += n;
            return b;
        }

        void skip(int n) {
            pos += n;
        }
    }

    /** Writes varints; for CIDs and test fixtures. */
    static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Writer write(long value) {
            long v = value;
            while ((v & ~0x7fL) != 0) {
                out.write((int) ((v & 0x7f) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
            return this;
        }

        Writer raw(byte[] b) {
            out.writeBytes(b);
            return this;
        }

        byte[] toBytes() {
            return out.toByteArray();
        }
    }
}
