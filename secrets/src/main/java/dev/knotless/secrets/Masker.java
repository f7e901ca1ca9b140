package dev.knotless.secrets;

import dev.knotless.executor.OutputSink;
import java.io.ByteArrayOutputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Replaces secret values in output with {@value #REPLACEMENT}, as the output streams past.
 *
 * <h2>What is masked</h2>
 *
 * For every value of at least {@value #MIN_LENGTH} characters, these byte strings (see {@link
 * #forms}), each only when at least {@value #MIN_LENGTH} bytes long:
 *
 * <ul>
 *   <li>the value's UTF-8 bytes, and, when it has several lines, each line of at least {@value
 *       #MIN_LINE_LENGTH} characters without its surrounding whitespace (tools often print a key
 *       or a JSON document line by line, re-indented; short lines such as <code>},</code> would
 *       mask half the log);
 *   <li>its standard base64 encoding, with padding, and the three alignments in which it can sit
 *       inside a longer base64 text (starting at byte offset 0, 1 or 2 of a 3-byte group),
 *       trimmed of the characters that also depend on the neighbouring bytes;
 *   <li>those base64 texts as tools wrap them: a newline every {@value #WRAP_COREUTILS} characters
 *       (coreutils {@code base64}, MIME) or every {@value #WRAP_PEM} ({@code openssl base64}, PEM),
 *       at every position the first newline can fall in the value, for values whose base64 is at
 *       most {@value #MAX_WRAPPED} characters (the number of patterns grows with the square of
 *       the length; a longer value is masked in its unwrapped forms only);
 *   <li>its URL encoding ({@link URLEncoder}, spaces as {@code +}) and the same with spaces as
 *       {@code %20};
 *   <li>when it holds a single quote, the two ways shells print it quoted: {@code set -x} in bash
 *       ({@code 'it'\''s'}) and {@code shlex.quote}-style ({@code 'it'"'"'s'}), each without the
 *       outer quotes;
 *   <li>when it holds a character JSON escapes, its JSON string body as the common encoders write
 *       it: RFC 8259's escapes (Jackson, {@code jq}); also {@code <>&} as unicode escapes (Go's
 *       {@code encoding/json}); also every non-ASCII character as a unicode escape (Python's
 *       {@code json.dumps}); each also with {@code /} escaped;
 *   <li>its UTF-8 bytes in hex ({@code xxd -p}, {@code od}, a digest tool's input), percent-encoded
 *       byte by byte ({@code %73%33...}, as {@code curl --data-urlencode} of binary or a URL builder
 *       that escapes everything writes it), and its characters each as a JSON <code>&#92;u00XX</code>
 *       escape; each with lower-case and with upper-case digits.
 * </ul>
 *
 * Each of these is also masked as a terminal shows it: with complete control sequences inside it
 * (a colour change, as {@code grep --color=always} or {@code jq -C} print, an OSC 8 hyperlink),
 * which the terminal and the status page drop. The masked run then reaches from the form's first
 * to its last byte, the sequences inside included; sequences around it pass unchanged, so the
 * page keeps its colours. CSI (at most {@value VisibleScan#CSI_MAX} bytes), OSC (at most {@value
 * VisibleScan#OSC_MAX}, ended by BEL or ST) and two-byte escapes count; a broken, unterminated or
 * overlong one is ordinary bytes, and so is everything after the sequences inside one match's
 * reach pass {@value VisibleScan#SKIPPED_MAX} bytes (see {@link VisibleScan}).
 *
 * <p>Shorter values are not masked: masking a one- or two-character value would replace every such
 * letter pair in the log and protect nothing. {@link #isMaskable} lets callers warn about them.
 *
 * <h2>How</h2>
 *
 * Every byte covered by an occurrence of any pattern is masked, and each maximal run of masked
 * bytes becomes one {@value #REPLACEMENT}; where patterns overlap or one contains another the
 * longest therefore wins, and two overlapping values never leave a fragment showing. The result
 * does not depend on how the output was split into writes.
 *
 * <p>Finding the occurrences takes one pass over the bytes ({@link ByteAutomaton}): a Wu–Manber
 * skip scan moves over ordinary text several bytes at a time, and where a pattern may begin an
 * Aho–Corasick automaton takes over until no partial match is left. The work is linear in the
 * output whatever the values (no pattern is ever re-compared from its start), and ordinary text
 * costs a fraction of a table lookup per byte. The skip distance is bounded by the shortest
 * pattern, so very short values (under about eight bytes) make masking slower, though never
 * slower than the automaton alone. See {@code docs/design/secrets.md} for measurements.
 *
 * <h2>Streams</h2>
 *
 * {@link #newStream} keeps one matching state per stream kind, so a value split across writes of
 * the same stream is masked even when the other stream writes in between. The runner's log records
 * the two streams merged in the order their writes reach the sink, so a value written half to
 * stdout and half to stderr is whole there: a third scan runs over that merged order (only the
 * first longest-pattern bytes after each switch of stream, where such a value can end) and masks
 * each stream's part of it ({@link MergedScan}). Each stream's bytes still go out in their own
 * order, and only at its own write or the flush: a stream whose tail may begin a value the other
 * stream could finish holds that tail (fewer bytes than the longest pattern) until then. Control
 * sequences are not skipped across a switch. Masking is a guard against accidents (a tool echoing
 * its configuration), not against a step that sets out to reveal a secret, which it can always do
 * by transforming it. Because each kind holds back its own tail, held stdout bytes may be emitted
 * after stderr bytes that were written later (by at most the held amount).
 *
 * <p>Immutable and thread-safe; each {@link MaskingSink} is used by one thread at a time.
 */
public final class Masker {

    /** Values with fewer characters, and encoded forms with fewer bytes, are not masked. */
    public static final int MIN_LENGTH = 3;
    /** Lines of a multi-line value are masked on their own when, stripped, at least this long. */
    public static final int MIN_LINE_LENGTH = 8;
    /** What a masked run of output becomes. */
    public static final String REPLACEMENT = "***";
    /** Line width of coreutils {@code base64} and MIME. */
    static final int WRAP_COREUTILS = 76;
    /** Line width of {@code openssl base64} and PEM. */
    static final int WRAP_PEM = 64;
    /**
     * Longest base64 text whose wrapped forms are masked: each costs one pattern per position of
     * the first newline, so the automaton grows with the square of the length.
     */
    static final int MAX_WRAPPED = 4 * WRAP_COREUTILS;

    private static final Masker NONE = new Masker(null, List.of());

    /** Null when there is nothing to mask: output passes through untouched. */
    private final @Nullable ByteAutomaton automaton;
    /** The values it was made for, so that {@link #with} can make one that masks more. */
    private final List<String> values;

    private Masker(@Nullable ByteAutomaton automaton, List<String> values) {
        this.automaton = automaton;
        this.values = values;
    }

    /** A masker for {@code values}; empty and too-short values are skipped (see the class comment). */
    public static Masker of(Collection<String> values) {
        return of(values, ByteAutomaton.DENSE_ENTRY_BUDGET);
    }

    /** {@link #of(Collection)} with the automaton's dense part limited, so tests reach its sparse part. */
    static Masker of(Collection<String> values, int denseEntryBudget) {
        Set<String> patterns = new LinkedHashSet<>();
        List<String> kept = new ArrayList<>();
        for (String value : new LinkedHashSet<>(values)) {
            Set<String> forms = forms(Objects.requireNonNull(value, "value"));
            if (!forms.isEmpty()) {
                patterns.addAll(forms);
                kept.add(value);
            }
        }
        if (patterns.isEmpty()) {
            return NONE;
        }
        List<byte[]> bytes = new ArrayList<>(patterns.size());
        for (String p : patterns) {
            bytes.add(p.getBytes(StandardCharsets.UTF_8));
        }
        return new Masker(new ByteAutomaton(bytes, denseEntryBudget), List.copyOf(kept));
    }

    /**
     * A masker for this one's values and {@code more}: a run whose steps name values to mask as it
     * goes ({@code ::add-mask::}) gets one automaton over all of them, so that overlapping values
     * still leave no fragment showing. This one when {@code more} adds nothing maskable.
     */
    public Masker with(Collection<String> more) {
        List<String> all = new ArrayList<>(values);
        boolean grows = false;
        for (String value : more) {
            if (isMaskable(value) && !all.contains(value)) {
                all.add(value);
                grows = true;
            }
        }
        return grows ? of(all) : this;
    }

    /** The masker that masks nothing; its streams pass writes straight through. */
    public static Masker none() {
        return NONE;
    }

    /** True when {@code value} is long enough to be masked. */
    public static boolean isMaskable(String value) {
        return value.codePointCount(0, value.length()) >= MIN_LENGTH;
    }

    /** A masking view of {@code downstream}; with no patterns, a pass-through that copies nothing. */
    public MaskingSink newStream(OutputSink downstream) {
        Objects.requireNonNull(downstream, "downstream");
        return automaton == null ? new PassThroughSink(downstream) : new AutomatonSink(automaton, downstream);
    }

    /**
     * A finder over one byte stream: whether the values occur in it, in any of the masked forms,
     * without copying or changing the bytes (a cache layer is checked this way before it is kept).
     */
    public Finder finder() {
        return new Finder(automaton);
    }

    /** {@code text} with every value masked; for one-off strings such as error messages. */
    public String mask(String text) {
        if (automaton == null) {
            return text;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() + 16);
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        try (MaskingSink sink = newStream((stream, buffer, offset, length) -> out.write(buffer, offset, length))) {
            sink.write(OutputSink.Stream.STDOUT, bytes, 0, bytes.length);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** How many distinct byte strings are masked. */
    public int patternCount() {
        return automaton == null ? 0 : automaton.patternCount;
    }

    /**
     * The longest masked byte string. A stream holds back at most this many bytes per kind, plus
     * up to {@link VisibleScan#EXTRA_HOLD} while control sequences may sit inside a match.
     */
    public int longestPattern() {
        return automaton == null ? 0 : automaton.maxPatternLength;
    }

    /** The automaton's size in states, for the benchmark. */
    int stateCount() {
        return automaton == null ? 0 : automaton.stateCount();
    }

    /** The texts masked for one value, as listed in the class comment; empty when too short. */
    static Set<String> forms(String value) {
        Set<String> forms = new LinkedHashSet<>();
        if (!isMaskable(value)) {
            return forms;
        }
        add(forms, value);
        if (value.indexOf('\n') >= 0 || value.indexOf('\r') >= 0) {
            for (String line : value.split("\r?\n|\r")) {
                String stripped = line.strip();
                if (stripped.codePointCount(0, stripped.length()) >= MIN_LINE_LENGTH) {
                    add(forms, stripped);
                }
            }
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        add(forms, Base64.getEncoder().encodeToString(bytes));
        for (int shift = 0; shift < 3; shift++) {
            String core = base64Core(bytes, shift);
            add(forms, core);
            // the padded form's wrapped copies would differ from the cores' only in the padding
            for (int width : new int[] {WRAP_COREUTILS, WRAP_PEM}) {
                wrapped(core, width).forEach(w -> add(forms, w));
            }
        }
        String url = URLEncoder.encode(value, StandardCharsets.UTF_8);
        add(forms, url);
        add(forms, url.replace("+", "%20"));
        if (value.indexOf('\'') >= 0) {
            add(forms, value.replace("'", "'\\''"));
            add(forms, value.replace("'", "'\"'\"'"));
        }
        for (JsonEscape style : JsonEscape.values()) {
            String json = style.body(value);
            if (!json.equals(value)) {
                add(forms, json);
                add(forms, json.replace("/", "\\/"));
            }
        }
        for (HexFormat hex : List.of(HexFormat.of(), HexFormat.of().withUpperCase())) {
            add(forms, hex.formatHex(bytes));
            add(forms, hex.withPrefix("%").formatHex(bytes)); // percent-encoded byte by byte
            StringBuilder units = new StringBuilder(6 * value.length());
            for (int i = 0; i < value.length(); i++) {
                units.append("\\u").append(hex.toHexDigits(value.charAt(i)));
            }
            add(forms, units.toString()); // a JSON string escaped character by character
        }
        return forms;
    }

    /**
     * {@code encoded} with a newline every {@code width} characters, for every place the first
     * newline can fall inside it (a wrapped text's lines start wherever the tool's output began,
     * not where the value did). Empty for texts longer than {@link #MAX_WRAPPED}.
     */
    static List<String> wrapped(String encoded, int width) {
        if (encoded.length() > MAX_WRAPPED) {
            return List.of();
        }
        List<String> forms = new ArrayList<>();
        for (int first = 1; first <= width && first < encoded.length(); first++) {
            StringBuilder b = new StringBuilder(encoded.length() + encoded.length() / width + 1);
            int from = 0;
            for (int cut = first; cut < encoded.length(); cut += width) {
                b.append(encoded, from, cut).append('\n');
                from = cut;
            }
            forms.add(b.append(encoded, from, encoded.length()).toString());
        }
        return forms;
    }

    /**
     * The base64 characters that depend only on {@code bytes} when they start {@code shift} bytes
     * into a 3-byte group: encode {@code shift} filler bytes and the value, then keep the
     * characters whose 6 bits all come from the value.
     */
    static String base64Core(byte[] bytes, int shift) {
        byte[] shifted = new byte[shift + bytes.length];
        System.arraycopy(bytes, 0, shifted, shift, bytes.length);
        String encoded = Base64.getEncoder().withoutPadding().encodeToString(shifted);
        int from = (8 * shift + 5) / 6;
        int to = (8 * (shift + bytes.length)) / 6;
        return from < to ? encoded.substring(from, to) : "";
    }

    private static void add(Set<String> forms, String form) {
        if (form.getBytes(StandardCharsets.UTF_8).length >= MIN_LENGTH) {
            forms.add(form);
        }
    }

    @Override
    public String toString() {
        return "Masker[" + patternCount() + " patterns]";
    }

    /**
     * Looks for the masker's forms in a stream fed in pieces: an occurrence split between two
     * pieces is found. Used by one thread at a time.
     */
    public static final class Finder {
        private final @Nullable ByteAutomaton automaton;
        private int state = ByteAutomaton.START;
        private long position;
        private boolean found;
        private final AutomatonScan.Matches onMatch = (start, end) -> found = true;

        private Finder(@Nullable ByteAutomaton automaton) {
            this.automaton = automaton;
        }

        /** True when an occurrence ends within these bytes (it may have begun in an earlier piece). */
        public boolean feed(byte[] buffer, int offset, int length) {
            Objects.checkFromIndexSize(offset, length, buffer.length);
            found = false;
            if (automaton != null && length > 0) {
                state = AutomatonScan.scan(automaton, state, buffer, offset, length, position - offset, onMatch);
                position += length;
            }
            return found;
        }
    }

    /** The sink of a masker with no patterns: every write goes straight through, uncopied. */
    private static final class PassThroughSink implements MaskingSink {
        private final OutputSink downstream;
        private long stdout;
        private long stderr;
        private boolean closed;

        PassThroughSink(OutputSink downstream) {
            this.downstream = downstream;
        }

        @Override
        public void write(Stream stream, byte[] buffer, int offset, int length) {
            if (closed) {
                throw new IllegalStateException("write after close");
            }
            downstream.write(stream, buffer, offset, length);
            if (stream == Stream.STDERR) {
                stderr += length;
            } else {
                stdout += length;
            }
        }

        @Override
        public long passed(Stream stream) {
            return stream == Stream.STDERR ? stderr : stdout;
        }

        @Override
        public void flush() {}

        @Override
        public void close() {
            closed = true;
        }
    }
}
