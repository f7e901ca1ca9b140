package dev.knotless.atproto.repo;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A strict DAG-CBOR decoder and a canonical encoder, small enough to read whole.
 *
 * <p>Written here rather than taken from a general CBOR library because DAG-CBOR is a strict
 * subset and the strictness is the point: a commit's signature covers its exact bytes, so there
 * must be one encoding of each value. The decoder refuses what a general one accepts: integers
 * and lengths not in their shortest form, indefinite lengths, tags other than 42 (a CID link),
 * map keys that are not strings or not in canonical order (shorter first, then bytewise) or
 * repeated, undefined, and floats (the ATProto data model has none). It is bounded: nesting at
 * most {@link #MAX_DEPTH}, and no length is believed beyond the bytes that remain, so a hostile
 * header cannot make it allocate.
 *
 * <p>Values: {@link Long}, {@link String}, {@code byte[]}, {@link List}, {@link Map} (string keys,
 * in their encoded order), {@link Boolean}, {@link Cid}, and {@code null}.
 */
public final class DagCbor {

    public static final int MAX_DEPTH = 64;
    private static final Comparator<String> CANONICAL = Comparator
            .<String>comparingInt(k -> k.getBytes(StandardCharsets.UTF_8).length)
            .thenComparing((a, b) -> Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8)));

    private DagCbor() {}

    /** Decodes one whole block: exactly one value, no trailing bytes. */
    public static @Nullable Object decode(byte[] block) throws ProofException {
        Decoder d = new Decoder(block);
        Object v = d.value(0);
        if (d.pos != block.length) {
            throw new ProofException("a DAG-CBOR block has " + (block.length - d.pos) + " bytes after its value");
        }
        return v;
    }

    /**
     * Decodes values laid end to end, as an event stream's frame holds a header then a body: at
     * most {@code most}, every byte belonging to one of them.
     */
    public static List<@Nullable Object> decodeSequence(byte[] bytes, int most) throws ProofException {
        Decoder d = new Decoder(bytes);
        List<@Nullable Object> values = new ArrayList<>();
        while (d.pos < bytes.length) {
            if (values.size() == most) {
                throw new ProofException("more than " + most + " DAG-CBOR values where " + most + " were expected");
            }
            values.add(d.value(0));
        }
        return values;
    }

    /** The canonical encoding of {@code value} (the types {@link #decode} gives, and {@link Integer}). */
    public static byte[] encode(@Nullable Object value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(out, value);
        return out.toByteArray();
    }

    private static final class Decoder {
        private final byte[] b;
        private int pos;

        Decoder(byte[] b) {
            this.b = b;
        }

        @Nullable Object value(int depth) throws ProofException {
            if (depth > MAX_DEPTH) {
                throw new ProofException("DAG-CBOR nested deeper than " + MAX_DEPTH);
            }
            int initial = u8();
            int major = initial >>> 5;
            int info = initial & 31;
            if (major == 7) {
                return switch (info) {
                    case 20 -> Boolean.FALSE;
                    case 21 -> Boolean.TRUE;
                    case 22 -> null;
                    case 25, 26, 27 -> throw new ProofException("a float in DAG-CBOR (the ATProto data model has none)");
                    default -> throw new ProofException("DAG-CBOR simple value " + info + " is not allowed");
                };
            }
            long n = argument(info);
            return switch (major) {
                case 0 -> {
                    if (n < 0) {
                        throw new ProofException("a DAG-CBOR integer beyond 64 signed bits");
                    }
                    yield n;
                }
                case 1 -> {
                    if (n < 0) {
                        throw new ProofException("a DAG-CBOR integer beyond 64 signed bits");
                    }
                    yield -1 - n;
                }
                case 2 -> take(n, "a byte string");
                case 3 -> utf8(take(n, "a text string"));
                case 4 -> {
                    int count = count(n, "an array");
                    List<Object> list = new ArrayList<>(count);
                    for (int i = 0; i < count; i++) {
                        list.add(value(depth + 1));
                    }
                    yield Collections.unmodifiableList(list);
                }
                case 5 -> {
                    // Each entry takes at least two bytes.
                    int count = count(n, "a map");
                    Map<String, @Nullable Object> map = new LinkedHashMap<>();
                    @Nullable String previous = null;
                    for (int i = 0; i < count; i++) {
                        int keyStart = pos;
                        int keyHead = u8();
                        if (keyHead >>> 5 != 3) {
                            throw new ProofException("a DAG-CBOR map key that is not a string");
                        }
                        pos = keyStart;
                        String key = (String) value(depth + 1);
                        if (previous != null && CANONICAL.compare(previous, key) >= 0) {
                            throw new ProofException("DAG-CBOR map keys out of canonical order or repeated (\"" + key + "\")");
                        }
                        previous = key;
                        map.put(key, value(depth + 1));
                    }
                    yield Collections.unmodifiableMap(map);
                }
                case 6 -> {
                    if (n != 42) {
                        throw new ProofException("DAG-CBOR tag " + n + " (only 42, a CID link, is allowed)");
                    }
                    int head = u8();
                    if (head >>> 5 != 2) {
                        throw new ProofException("a CID link that is not a byte string");
                    }
                    byte[] link = take(argument(head & 31), "a CID link");
                    if (link.length == 0 || link[0] != 0) {
                        throw new ProofException("a CID link without its leading 0x00");
                    }
                    yield Cid.fromBytes(Arrays.copyOfRange(link, 1, link.length));
                }
                default -> throw new IllegalStateException("major type " + major);
            };
        }

        private int u8() throws ProofException {
            if (pos >= b.length) {
                throw new ProofException("a DAG-CBOR block is cut short");
            }
            return b[pos++] & 0xff;
        }

        /** The head's argument, refusing any longer than needed; negative when over 63 bits. */
        private long argument(int info) throws ProofException {
            if (info < 24) {
                return info;
            }
            int size = switch (info) {
                case 24 -> 1;
                case 25 -> 2;
                case 26 -> 4;
                case 27 -> 8;
                case 31 -> throw new ProofException("an indefinite length in DAG-CBOR");
                default -> throw new ProofException("a reserved DAG-CBOR head (" + info + ")");
            };
            long v = 0;
            for (int i = 0; i < size; i++) {
                v = (v << 8) | u8();
            }
            long least = switch (size) {
                case 1 -> 24;
                case 2 -> 1L << 8;
                case 4 -> 1L << 16;
                default -> 1L << 32;
            };
            if (Long.compareUnsigned(v, least) < 0) {
                throw new ProofException("a DAG-CBOR length or integer not in its shortest form");
            }
            return v;
        }

        private byte[] take(long n, String what) throws ProofException {
            if (n < 0 || n > b.length - pos) {
                throw new ProofException(what + " longer than the block");
            }
            byte[] out = Arrays.copyOfRange(b, pos, pos + (int) n);
            pos += (int) n;
            return out;
        }

        private int count(long n, String what) throws ProofException {
            if (n < 0 || n > b.length - pos) {
                throw new ProofException(what + " of more items than the block has bytes");
            }
            return (int) n;
        }

        private static String utf8(byte[] bytes) throws ProofException {
            try {
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                throw new ProofException("a DAG-CBOR text string that is not UTF-8");
            }
        }
    }

    private static void write(ByteArrayOutputStream out, @Nullable Object v) {
        switch (v) {
            case null -> out.write(0xf6);
            case Boolean bool -> out.write(bool ? 0xf5 : 0xf4);
            case Integer i -> write(out, (long) i);
            case Long l -> {
                if (l >= 0) {
                    head(out, 0, l);
                } else {
                    head(out, 1, -1 - l);
                }
            }
            case String s -> {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                head(out, 3, bytes.length);
                out.writeBytes(bytes);
            }
            case byte[] bytes -> {
                head(out, 2, bytes.length);
                out.writeBytes(bytes);
            }
            case Cid cid -> {
                byte[] bytes = cid.bytes();
                head(out, 6, 42);
                head(out, 2, bytes.length + 1);
                out.write(0);
                out.writeBytes(bytes);
            }
            case List<?> list -> {
                head(out, 4, list.size());
                list.forEach(x -> write(out, x));
            }
            case Map<?, ?> map -> {
                List<String> keys = new ArrayList<>();
                map.keySet().forEach(k -> keys.add((String) k));
                keys.sort(CANONICAL);
                head(out, 5, keys.size());
                for (String k : keys) {
                    write(out, k);
                    write(out, map.get(k));
                }
            }
            default -> throw new IllegalArgumentException("no DAG-CBOR form for " + v.getClass().getName());
        }
    }

    private static void head(ByteArrayOutputStream out, int major, long n) {
        int m = major << 5;
        if (n < 24) {
            out.write(m | (int) n);
        } else if (n < 1L << 8) {
            out.write(m | 24);
            out.write((int) n);
        } else if (n < 1L << 16) {
            out.write(m | 25);
            out.write((int) (n >>> 8));
            out.write((int) n);
        } else if (n < 1L << 32) {
            out.write(m | 26);
            for (int s = 24; s >= 0; s -= 8) {
                out.write((int) (n >>> s));
            }
        } else {
            out.write(m | 27);
            for (int s = 56; s >= 0; s -= 8) {
                out.write((int) (n >>> s));
            }
        }
    }
}
