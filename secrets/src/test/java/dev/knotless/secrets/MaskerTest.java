package dev.knotless.secrets;

import static dev.knotless.executor.OutputSink.Stream.STDERR;
import static dev.knotless.executor.OutputSink.Stream.STDOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import dev.knotless.testkit.RecordingOutput;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MaskerTest {

    private static final String SECRET = "hunter2-Xq9!zz";

    @Test
    void aValueInTheOutputIsReplacedByThreeStars() {
        assertThat(mask(List.of(SECRET), "login with " + SECRET + " ok\n")).isEqualTo("login with *** ok\n");
    }

    @Test
    void aMaskerWithMoreValuesMasksThemAllAndOverlappingOnesLeaveNoFragment() {
        Masker granted = Masker.of(List.of("abcdefgh"));
        Masker more = granted.with(List.of("defghijk", "ab", "abcdefgh"));

        assertThat(more.mask("x abcdefghijk y")).isEqualTo("x *** y");
        assertThat(more.mask("defghijk")).isEqualTo("***");
        assertThat(granted.mask("defghijk")).as("the first masker is unchanged").isEqualTo("defghijk");
        assertThat(granted.with(List.of("ab", "abcdefgh"))).as("nothing maskable added").isSameAs(granted);
        assertThat(Masker.none().with(List.of(SECRET)).mask(SECRET)).isEqualTo("***");
    }

    @Test
    void everyOccurrenceIsMaskedIncludingAtTheEdges() {
        assertThat(mask(List.of(SECRET), SECRET + " and " + SECRET + SECRET + "."))
                .isEqualTo("*** and ***.");
    }

    @Test
    void aValueSplitAcrossTwoWritesAtAnyOffsetIsMasked() {
        String text = "before " + SECRET + " after";
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        Masker masker = Masker.of(List.of(SECRET));

        for (int cut = 0; cut <= bytes.length; cut++) {
            RecordingOutput out = new RecordingOutput();
            try (MaskingSink sink = masker.newStream(out)) {
                sink.write(STDOUT, bytes, 0, cut);
                sink.write(STDOUT, bytes, cut, bytes.length - cut);
            }
            assertThat(out.stdout()).as("cut at %d", cut).isEqualTo("before *** after");
        }
    }

    @Test
    void aValueSplitAcrossThreeWritesAtAnyOffsetsOrByteByByteIsMasked() {
        byte[] bytes = ("x" + SECRET + "y").getBytes(StandardCharsets.UTF_8);
        Masker masker = Masker.of(List.of(SECRET));

        for (int a = 0; a <= bytes.length; a++) {
            for (int b = a; b <= bytes.length; b++) {
                RecordingOutput out = new RecordingOutput();
                try (MaskingSink sink = masker.newStream(out)) {
                    sink.write(STDOUT, bytes, 0, a);
                    sink.write(STDOUT, bytes, a, b - a);
                    sink.write(STDOUT, bytes, b, bytes.length - b);
                }
                assertThat(out.stdout()).as("cuts %d %d", a, b).isEqualTo("x***y");
            }
        }
        RecordingOutput out = new RecordingOutput();
        try (MaskingSink sink = masker.newStream(out)) {
            for (int i = 0; i < bytes.length; i++) {
                sink.write(STDOUT, new byte[] {bytes[i]}, 0, 1);
            }
        }
        assertThat(out.stdout()).isEqualTo("x***y");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5})
    void theBase64FormIsMaskedAtEveryAlignmentInsideALongerBase64Text(int prefixBytes) {
        Random random = new Random(prefixBytes);
        byte[] prefix = new byte[prefixBytes];
        byte[] suffix = new byte[7];
        random.nextBytes(prefix);
        random.nextBytes(suffix);
        byte[] value = SECRET.getBytes(StandardCharsets.UTF_8);
        byte[] whole = new byte[prefix.length + value.length + suffix.length];
        System.arraycopy(prefix, 0, whole, 0, prefix.length);
        System.arraycopy(value, 0, whole, prefix.length, value.length);
        System.arraycopy(suffix, 0, whole, prefix.length + value.length, suffix.length);
        String encoded = Base64.getEncoder().encodeToString(whole);
        String core = Masker.base64Core(value, prefixBytes % 3);
        assertThat(encoded).contains(core);

        String masked = mask(List.of(SECRET), "data: " + encoded + "\n");

        assertThat(masked).doesNotContain(core).contains("***");
        // At most the two characters mixing value and neighbour bits survive on each side.
        assertThat(masked.length()).isLessThanOrEqualTo(("data: " + encoded + "\n").length() - core.length() + 3);
    }

    @Test
    void thePaddedBase64OfTheWholeValueIsMaskedCompletely() {
        String encoded = Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8));
        assertThat(encoded).endsWith("=");

        assertThat(mask(List.of(SECRET), "Authorization: Basic " + encoded + "\n"))
                .isEqualTo("Authorization: Basic ***\n");
    }

    @Test
    void theUrlEncodedFormsAreMasked() {
        String value = "p@ss word/+&=ü";
        String plus = URLEncoder.encode(value, StandardCharsets.UTF_8);
        String percent20 = plus.replace("+", "%20");
        assertThat(plus).isNotEqualTo(value).contains("+");

        assertThat(mask(List.of(value), "GET /login?pw=" + plus + "&x=1")).isEqualTo("GET /login?pw=***&x=1");
        assertThat(mask(List.of(value), "GET /login?pw=" + percent20 + "&x=1")).isEqualTo("GET /login?pw=***&x=1");
    }

    @Test
    void whenOneValueContainsAnotherTheLongestIsMaskedWhole() {
        List<String> values = List.of("abc123", "abc123-and-more");

        assertThat(mask(values, "[abc123-and-more]")).isEqualTo("[***]");
        assertThat(mask(values, "[abc123-and-less]")).isEqualTo("[***-and-less]");
        assertThat(mask(List.of("more", "abc123-and-more"), "[abc123-and-more]")).isEqualTo("[***]");
    }

    @Test
    void overlappingValuesLeaveNoFragmentOfEitherShowing() {
        assertThat(mask(List.of("abcdef", "defghi"), "[abcdefghi]")).isEqualTo("[***]");
        assertThat(mask(List.of("defghi", "abcdef"), "[abcdefghi]")).isEqualTo("[***]");
    }

    @Test
    void textWithoutValuesPassesUnchangedIncludingNearMisses() {
        List<String> values = List.of(SECRET, "abcdef", "xyz789");
        String text = "hunter2-Xq9!z abcde bcdef xyz78 yz789 hunter2 Xq9!zz aabcdeXf abcdeX "
                + "ünïcödé 😀 \u0000\u00ff end";

        assertThat(mask(values, text)).isEqualTo(text);
    }

    @Test
    void randomTextWithoutValuesPassesUnchanged() {
        Random random = new Random(42);
        List<String> values = List.of("Q7vLk2pZr9Ws", "m3Nb8Xc1Vt6Yh", "0aF4eD2cB9");
        byte[] text = new byte[200_000];
        for (int i = 0; i < text.length; i++) {
            text[i] = (byte) (32 + random.nextInt(95));
        }
        String input = new String(text, StandardCharsets.US_ASCII);
        for (String v : values) {
            assertThat(input).doesNotContain(v);
        }

        assertThat(mask(values, input)).isEqualTo(input);
    }

    @Test
    void flushEmitsTheHeldTailUnmasked() {
        Masker masker = Masker.of(List.of("abcdef"));
        RecordingOutput out = new RecordingOutput();
        MaskingSink sink = masker.newStream(out);

        sink.write(STDOUT, bytes("12abc"), 0, 5);
        assertThat(out.stdout()).isEqualTo("12");
        sink.flush();
        assertThat(out.stdout()).isEqualTo("12abc");

        sink.write(STDOUT, bytes("abcdef!"), 0, 7);
        sink.close();
        assertThat(out.stdout()).isEqualTo("12abc***!");
    }

    /**
     * A restarted runner follows a step from the bytes {@link MaskingSink#passed} counted, with a
     * new sink: what the two sinks pass on together is what one sink would have passed on.
     */
    @Test
    void outputResumedWhereThePassedCountSaysIsMaskedAsInOneStream() {
        Random random = new Random(42);
        Masker masker = Masker.of(List.of(SECRET, "abcdef"));
        for (int round = 0; round < 300; round++) {
            StringBuilder text = new StringBuilder();
            while (text.length() < 400) {
                int pick = random.nextInt(10);
                text.append(pick == 0 ? SECRET : pick == 1 ? "abcdef" : pick == 2 ? "abc" : "x" + random.nextInt(1000));
                text.append(' ');
            }
            byte[] all = bytes(text.toString());
            RecordingOutput whole = new RecordingOutput();
            try (MaskingSink one = masker.newStream(whole)) {
                one.write(STDOUT, all, 0, all.length);
            }

            int cut = random.nextInt(all.length);
            RecordingOutput before = new RecordingOutput();
            MaskingSink dying = masker.newStream(before);
            for (int at = 0; at < cut; ) {
                int n = Math.min(cut - at, 1 + random.nextInt(40));
                dying.write(STDOUT, all, at, n);
                at += n;
            }
            long passed = dying.passed(STDOUT);
            assertThat(passed).isBetween((long) cut - 20, (long) cut);
            assertThat(dying.passed(STDERR)).isZero();
            RecordingOutput after = new RecordingOutput();
            try (MaskingSink resumed = masker.newStream(after)) {
                resumed.write(STDOUT, all, (int) passed, all.length - (int) passed);
            }
            assertThat(before.stdout() + after.stdout()).as("cut at %d, passed %d", cut, passed).isEqualTo(whole.stdout());
        }
    }

    @Test
    void aSinkWithoutValuesCountsEveryByteAsPassed() {
        MaskingSink sink = Masker.of(List.of()).newStream(new RecordingOutput());
        sink.write(STDOUT, bytes("12345"), 0, 5);
        sink.write(STDERR, bytes("12"), 0, 2);
        assertThat(sink.passed(STDOUT)).isEqualTo(5);
        assertThat(sink.passed(STDERR)).isEqualTo(2);
    }

    @Test
    void closeIsIdempotentAndLaterWritesAreRefused() {
        MaskingSink sink = Masker.of(List.of("abcdef")).newStream(new RecordingOutput());
        sink.close();
        sink.close();

        assertThatIllegalStateException().isThrownBy(() -> sink.write(STDOUT, bytes("x"), 0, 1));
        MaskingSink passThrough = Masker.none().newStream(new RecordingOutput());
        passThrough.close();
        assertThatIllegalStateException().isThrownBy(() -> passThrough.write(STDOUT, bytes("x"), 0, 1));
    }

    @Test
    void aStreamHoldsBackFewerBytesThanTheLongestPattern() {
        // Text of a and b only: long partial matches all the time, never a whole one.
        Masker masker = Masker.of(List.of("aaaaaaaaaaaaaaaaaaac", "abababababababababac"));
        int bound = masker.longestPattern() - 1;
        RecordingOutput out = new RecordingOutput();
        Random random = new Random(1);
        try (MaskingSink sink = masker.newStream(out)) {
            int written = 0;
            int maxHeld = 0;
            for (int i = 0; i < 2_000; i++) {
                byte[] chunk = new byte[random.nextInt(5)];
                for (int j = 0; j < chunk.length; j++) {
                    chunk[j] = (byte) (random.nextInt(20) == 0 ? 'b' : 'a');
                }
                sink.write(STDOUT, chunk, 0, chunk.length);
                written += chunk.length;
                assertThat(written - out.emittedBytes()).isLessThanOrEqualTo(bound);
                maxHeld = Math.max(maxHeld, written - out.emittedBytes());
            }
            assertThat(maxHeld).as("the text did reach deep partial matches").isGreaterThan(15);
            sink.flush();
            assertThat(out.emittedBytes()).isEqualTo(written);
        }
    }

    @Test
    void stdoutAndStderrAreMaskedSeparatelyWhenTheirWritesInterleave() {
        Masker masker = Masker.of(List.of(SECRET));
        RecordingOutput out = new RecordingOutput();
        try (MaskingSink sink = masker.newStream(out)) {
            sink.write(STDOUT, bytes("out " + SECRET.substring(0, 5)), 0, 9);
            sink.write(STDERR, bytes("err " + SECRET.substring(0, 9)), 0, 13);
            sink.write(STDOUT, bytes(SECRET.substring(5) + " done"), 0, SECRET.length() - 5 + 5);
            sink.write(STDERR, bytes(SECRET.substring(9) + "!"), 0, SECRET.length() - 9 + 1);
        }

        assertThat(out.stdout()).isEqualTo("out *** done");
        assertThat(out.stderr()).isEqualTo("err ***!");
    }

    @Test
    void eachLineOfAMultiLineValueIsMaskedOnItsOwn() {
        String key = "-----BEGIN KEY-----\nMIIEvQIBADANBgkq\nhkiG9w0BAQEFAASC\n-----END KEY-----\n";

        assertThat(mask(List.of(key), "> MIIEvQIBADANBgkq\n> hkiG9w0BAQEFAASC\n"))
                .isEqualTo("> ***\n> ***\n");
        assertThat(mask(List.of(key), key)).isEqualTo("***");
    }

    @Test
    void shortLinesOfAMultiLineValueAreNotMaskedOnTheirOwn() {
        String json = "{\n  \"type\": \"service_account\",\n  \"key\": \"k-8f3a9c2e\"\n},\n";

        assertThat(Masker.forms(json)).contains("\"key\": \"k-8f3a9c2e\"").doesNotContain("},", "{");
        assertThat(mask(List.of(json), "config: {\n},\n  \"key\": \"k-8f3a9c2e\"\n"))
                .isEqualTo("config: {\n},\n  ***\n");
    }

    @Test
    void anAdversarialInputStaysLinear() {
        String value = "a".repeat(20_000) + "b";
        byte[] input = "a".repeat(4_000_000).getBytes(StandardCharsets.UTF_8);
        Masker masker = Masker.of(List.of(value));
        RecordingOutput out = new RecordingOutput();

        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
            try (MaskingSink sink = masker.newStream(out)) {
                for (int at = 0; at < input.length; at += 8192) {
                    sink.write(STDOUT, input, at, Math.min(8192, input.length - at));
                }
            }
        });
        assertThat(out.emittedBytes()).isEqualTo(input.length);
    }

    @Test
    void aLongValueWrittenOneByteAtATimeIsMaskedInLinearTime() {
        Random random = new Random(3);
        StringBuilder value = new StringBuilder();
        for (int i = 0; i < 100_000; i++) {
            value.append((char) ('a' + random.nextInt(26)));
        }
        byte[] text = ("<" + value + ">").getBytes(StandardCharsets.UTF_8);
        String noMatch = "a".repeat(60_000) + "b";
        byte[] as = "a".repeat(200_000).getBytes(StandardCharsets.UTF_8);
        RecordingOutput first = new RecordingOutput();
        RecordingOutput second = new RecordingOutput();

        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(20), () -> {
            try (MaskingSink sink = Masker.of(List.of(value.toString())).newStream(first)) {
                for (int i = 0; i < text.length; i++) {
                    sink.write(STDOUT, text, i, 1);
                }
            }
            // Each write here releases one byte and keeps a partial match of 60,000 bytes.
            try (MaskingSink sink = Masker.of(List.of(noMatch)).newStream(second)) {
                for (int i = 0; i < as.length; i++) {
                    sink.write(STDOUT, as, i, 1);
                }
            }
        });
        assertThat(first.stdout()).isEqualTo("<***>");
        assertThat(second.emittedBytes()).isEqualTo(as.length);
    }

    @Test
    void anEmptyValueSetIsAPassThroughThatCopiesNothing() {
        Masker masker = Masker.of(List.of());
        RecordingOutput out = new RecordingOutput();
        byte[] buffer = bytes("anything at all");

        masker.newStream(out).write(STDERR, buffer, 3, 5);

        assertThat(masker).isSameAs(Masker.none());
        assertThat(out.calls()).singleElement().satisfies(call -> {
            assertThat(call.buffer()).isSameAs(buffer);
            assertThat(call.offset()).isEqualTo(3);
            assertThat(call.length()).isEqualTo(5);
            assertThat(call.stream()).isEqualTo(STDERR);
        });
    }

    @Test
    void emptyAndTooShortValuesAreNotMasked() {
        Masker masker = Masker.of(List.of("", "ab", "é"));

        assertThat(masker.patternCount()).isZero();
        assertThat(masker.mask("ab é")).isEqualTo("ab é");
        assertThat(Masker.isMaskable("abc")).isTrue();
        assertThat(Masker.isMaskable("😀😀")).isFalse();
        assertThat(Masker.of(List.of("abc")).mask("xabcx")).isEqualTo("x***x");
    }

    @Test
    void plainRunsArePassedFromTheCallersBufferWithoutCopying() {
        RecordingOutput out = new RecordingOutput();
        byte[] buffer = bytes("a long line with nothing secret in it, ending in newline\n");

        Masker.of(List.of(SECRET)).newStream(out).write(STDOUT, buffer, 0, buffer.length);

        assertThat(out.calls()).singleElement().satisfies(call -> {
            assertThat(call.buffer()).isSameAs(buffer);
            assertThat(call.length()).isEqualTo(buffer.length);
        });
    }

    @Test
    void maskingAStringMasksAllForms() {
        Masker masker = Masker.of(List.of(SECRET));
        String b64 = Base64.getEncoder().encodeToString(SECRET.getBytes(StandardCharsets.UTF_8));

        assertThat(masker.mask("error: bad token " + SECRET + " (" + b64 + ")")).isEqualTo("error: bad token *** (***)");
        assertThat(masker.toString()).doesNotContain(SECRET).contains("patterns");
    }

    static String mask(List<String> values, String text) {
        RecordingOutput out = new RecordingOutput();
        byte[] bytes = bytes(text);
        try (MaskingSink sink = Masker.of(values).newStream(out)) {
            sink.write(STDOUT, bytes, 0, bytes.length);
        }
        return out.stdout();
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
