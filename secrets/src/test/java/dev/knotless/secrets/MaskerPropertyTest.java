package dev.knotless.secrets;

import static dev.knotless.executor.OutputSink.Stream.STDERR;
import static dev.knotless.executor.OutputSink.Stream.STDOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.OutputSink;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * The streaming masker against a slow, obviously correct reference: mark every byte inside any
 * occurrence of any pattern, then turn each run of marked bytes into one replacement. Inputs use
 * a tiny alphabet so that patterns overlap, nest and almost-match all the time.
 */
class MaskerPropertyTest {

    private static final byte[] ALPHABET = "abc".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] WIDE = "abcdefgh ".getBytes(StandardCharsets.US_ASCII);

    @RepeatedTest(20)
    void streamingOutputEqualsTheReferenceForAnyChunking() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int round = 0; round < 100; round++) {
            // Short patterns over "abc" overlap and nest constantly; longer ones over a wider
            // alphabet let the skip scan take long strides between candidates.
            boolean longPatterns = random.nextBoolean();
            byte[] alphabet = longPatterns ? WIDE : ALPHABET;
            List<String> values = new ArrayList<>();
            for (int i = 1 + random.nextInt(6); i > 0; i--) {
                values.add(longPatterns
                        ? randomText(random, alphabet, 8 + random.nextInt(40))
                        : randomText(random, alphabet, 3 + random.nextInt(8)));
            }
            // Some rounds keep only the root (or the first levels) dense, to cover the sparse states.
            Masker masker = random.nextBoolean() ? Masker.of(values) : Masker.of(values, random.nextInt(200));
            byte[] input = randomInput(random, alphabet, values, 1 + random.nextInt(longPatterns ? 3000 : 400));
            String expected = reference(patterns(values), input);

            String streamed = streamInRandomChunks(masker, input, random);

            assertThat(streamed).as("seed %d round %d values %s input %s", seed, round, values,
                    new String(input, StandardCharsets.UTF_8)).isEqualTo(expected);
        }
    }

    @Test
    void interleavedStreamsEqualTheReferenceOfEachAndOfTheMergedOrder() {
        Random random = new Random(99);
        for (int round = 0; round < 300; round++) {
            List<String> values = List.of(randomText(random, 4), randomText(random, 6));
            Masker masker = Masker.of(values);
            byte[] out = randomInput(random, values, 200);
            byte[] err = randomInput(random, values, 200);
            ByteArrayOutputStream gotOut = new ByteArrayOutputStream();
            ByteArrayOutputStream gotErr = new ByteArrayOutputStream();
            ByteArrayOutputStream merged = new ByteArrayOutputStream();
            List<Boolean> fromErr = new ArrayList<>();
            try (MaskingSink sink = masker.newStream((stream, b, o, l) ->
                    (stream == STDOUT ? gotOut : gotErr).write(b, o, l))) {
                int i = 0;
                int j = 0;
                while (i < out.length || j < err.length) {
                    if (random.nextBoolean() && i < out.length) {
                        int n = Math.min(out.length - i, random.nextInt(9));
                        sink.write(STDOUT, out, i, n);
                        merged.write(out, i, n);
                        fromErr.addAll(java.util.Collections.nCopies(n, false));
                        i += n;
                    } else if (j < err.length) {
                        int n = Math.min(err.length - j, random.nextInt(9));
                        sink.write(STDERR, err, j, n);
                        merged.write(err, j, n);
                        fromErr.addAll(java.util.Collections.nCopies(n, true));
                        j += n;
                    }
                }
            }
            Set<byte[]> patterns = patterns(values);
            boolean[] inMerge = marks(patterns, merged.toByteArray());
            boolean[] outMarks = marks(patterns, out);
            boolean[] errMarks = marks(patterns, err);
            for (int k = 0, o = 0, e = 0; k < inMerge.length; k++) {
                if (fromErr.get(k)) {
                    errMarks[e++] |= inMerge[k];
                } else {
                    outMarks[o++] |= inMerge[k];
                }
            }
            assertThat(gotOut.toString(StandardCharsets.UTF_8)).isEqualTo(collapse(out, outMarks));
            assertThat(gotErr.toString(StandardCharsets.UTF_8)).isEqualTo(collapse(err, errMarks));
        }
    }

    @RepeatedTest(10)
    void controlSequencesAnywhereStillGiveTheReferenceForAnyChunking() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int round = 0; round < 100; round++) {
            List<String> values = new ArrayList<>();
            for (int i = 1 + random.nextInt(4); i > 0; i--) {
                values.add(randomText(random, ALPHABET, 3 + random.nextInt(8)));
            }
            Masker masker = random.nextBoolean() ? Masker.of(values) : Masker.of(values, random.nextInt(200));
            ByteArrayOutputStream input = new ByteArrayOutputStream();
            List<Boolean> hidden = new ArrayList<>();
            for (int piece = 0; piece < 60; piece++) {
                String value = values.get(random.nextInt(values.size()));
                switch (random.nextInt(5)) {
                    case 0 -> append(input, hidden, SEQUENCES[random.nextInt(SEQUENCES.length)], true);
                    case 1 -> append(input, hidden, ORDINARY[random.nextInt(ORDINARY.length)], false);
                    case 2 -> {
                        int cut = 1 + random.nextInt(value.length() - 1);
                        append(input, hidden, value.substring(0, cut), false);
                        append(input, hidden, SEQUENCES[random.nextInt(SEQUENCES.length)], true);
                        append(input, hidden, value.substring(cut), false);
                    }
                    case 3 -> append(input, hidden, value, false);
                    default -> append(input, hidden, randomText(random, ALPHABET, 1 + random.nextInt(6)), false);
                }
            }
            byte[] bytes = input.toByteArray();
            String expected = collapse(bytes, visibleMarks(patterns(values), bytes, hidden));

            assertThat(streamInRandomChunks(masker, bytes, random)).as("seed %d round %d values %s input %s", seed, round,
                    values, new String(bytes, StandardCharsets.UTF_8)).isEqualTo(expected);
        }
    }

    /** Complete sequences: what a terminal does not show. */
    private static final String[] SEQUENCES = {
        "\u001b[1m", "\u001b[0;31m", "\u001b[01;31m\u001b[K", "\u001b[m", "\u001b[38;5;208m", "\u001b[ q",
        "\u001b]8;;https://example.com/x\u001b\\", "\u001b]0;title\u0007", "\u001bM", "\u001b\\",
    };
    /** Broken ones: their bytes are shown, so they separate what is around them. */
    private static final String[] ORDINARY = {"\u001b[1;\n", "\u001bx", "\u001b]8;\n", "\u001b\u001bx", "\u001b[1\u001bx"};

    private static void append(ByteArrayOutputStream input, List<Boolean> hidden, String piece, boolean isHidden) {
        byte[] b = piece.getBytes(StandardCharsets.UTF_8);
        input.writeBytes(b);
        hidden.addAll(java.util.Collections.nCopies(b.length, isHidden));
    }

    /** Occurrences in the bytes, and in the shown bytes, each from its first to its last shown byte. */
    private static boolean[] visibleMarks(Set<byte[]> patterns, byte[] input, List<Boolean> hidden) {
        boolean[] masked = marks(patterns, input);
        int[] rawOf = new int[input.length];
        ByteArrayOutputStream shown = new ByteArrayOutputStream();
        for (int i = 0; i < input.length; i++) {
            if (!hidden.get(i)) {
                rawOf[shown.size()] = i;
                shown.write(input[i]);
            }
        }
        byte[] text = shown.toByteArray();
        for (byte[] p : patterns) {
            for (int v = 0; v + p.length <= text.length; v++) {
                if (java.util.Arrays.equals(text, v, v + p.length, p, 0, p.length)) {
                    java.util.Arrays.fill(masked, rawOf[v], rawOf[v + p.length - 1] + 1, true);
                }
            }
        }
        return masked;
    }

    @Test
    void realisticValuesInRealisticTextEqualTheReference() {
        Random random = new Random(5);
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            values.add(MaskerBench.randomSecret(random));
        }
        Set<byte[]> patterns = patterns(values);
        for (int round = 0; round < 50; round++) {
            Masker masker = round % 2 == 0 ? Masker.of(values) : Masker.of(values, 5_000);
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < 40; i++) {
                String v = values.get(random.nextInt(values.size()));
                switch (random.nextInt(4)) {
                    case 0 -> text.append("token=").append(v);
                    case 1 -> text.append("auth ").append(Base64.getEncoder().encodeToString(
                            ("u:" + v).getBytes(StandardCharsets.UTF_8)));
                    case 2 -> text.append("prefix ").append(v, 0, v.length() - 1);
                    default -> text.append("[INFO] step ").append(i).append(" ok");
                }
                text.append('\n');
            }
            byte[] input = text.toString().getBytes(StandardCharsets.UTF_8);
            assertThat(streamInRandomChunks(masker, input, random)).isEqualTo(reference(patterns, input));
        }
    }

    static String streamInRandomChunks(Masker masker, byte[] input, Random random) {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        try (MaskingSink sink = masker.newStream((OutputSink.Stream stream, byte[] b, int o, int l) -> got.write(b, o, l))) {
            int i = 0;
            while (i < input.length) {
                int n = Math.min(input.length - i, random.nextInt(switch (random.nextInt(3)) {
                    case 0 -> 4;
                    case 1 -> 40;
                    default -> 600;
                }));
                // Copy into a scratch buffer that is then scribbled on, as a reusing reader would.
                byte[] scratch = new byte[n + 2];
                System.arraycopy(input, i, scratch, 1, n);
                sink.write(STDOUT, scratch, 1, n);
                java.util.Arrays.fill(scratch, (byte) '#');
                i += n;
            }
        }
        return got.toString(StandardCharsets.UTF_8);
    }

    static Set<byte[]> patterns(List<String> values) {
        Set<byte[]> patterns = new LinkedHashSet<>();
        for (String v : values) {
            for (String form : Masker.forms(v)) {
                patterns.add(form.getBytes(StandardCharsets.UTF_8));
            }
        }
        return patterns;
    }

    /** Marks every byte of every occurrence, then one replacement per marked run. */
    static String reference(Set<byte[]> patterns, byte[] input) {
        return collapse(input, marks(patterns, input));
    }

    static boolean[] marks(Set<byte[]> patterns, byte[] input) {
        boolean[] masked = new boolean[input.length];
        for (byte[] p : patterns) {
            for (int i = 0; i + p.length <= input.length; i++) {
                if (java.util.Arrays.equals(input, i, i + p.length, p, 0, p.length)) {
                    java.util.Arrays.fill(masked, i, i + p.length, true);
                }
            }
        }
        return masked;
    }

    static String collapse(byte[] input, boolean[] masked) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < input.length; i++) {
            if (!masked[i]) {
                out.write(input[i]);
            } else if (i == 0 || !masked[i - 1]) {
                out.writeBytes(Masker.REPLACEMENT.getBytes(StandardCharsets.US_ASCII));
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static String randomText(Random random, int length) {
        return randomText(random, ALPHABET, length);
    }

    private static String randomText(Random random, byte[] alphabet, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = alphabet[random.nextInt(alphabet.length)];
        }
        return new String(b, StandardCharsets.US_ASCII);
    }

    private static byte[] randomInput(Random random, List<String> values, int length) {
        return randomInput(random, ALPHABET, values, length);
    }

    private static byte[] randomInput(Random random, byte[] alphabet, List<String> values, int length) {
        StringBuilder text = new StringBuilder();
        while (text.length() < length) {
            int kind = random.nextInt(8);
            String value = values.get(random.nextInt(values.size()));
            if (kind == 0) {
                text.append(value);
            } else if (kind == 1) {
                // A near miss: the value with one byte changed or cut short.
                int at = random.nextInt(value.length());
                text.append(value, 0, at).append(random.nextBoolean() ? "" : "#").append(value, Math.min(value.length(), at + 1), value.length());
            } else {
                text.append(randomText(random, alphabet, 1 + random.nextInt(alphabet == ALPHABET ? 6 : 60)));
            }
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }
}
