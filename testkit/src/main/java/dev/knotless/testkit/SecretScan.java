package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Looks for secret values where a test says none may be: every file under a directory (its
 * contents and its path), and texts such as a console capture, a check record, a log or an API
 * answer. A value is looked for in the forms a leak takes: plain, base64 at each of the three
 * offsets it can sit at inside a longer base64 text, and JSON-escaped (the required escapes, also
 * with every non-ASCII character and {@code /} escaped).
 *
 * <p>Written apart from the runner's masker on purpose: a test's oracle must not share the code it
 * checks. Compressed files (cache layers, git packs) cannot be looked into; they are scanned as
 * bytes, which finds only what they store uncompressed.
 *
 * <pre>{@code
 * SecretScan scan = SecretScan.of(List.of(value));
 * scan.assertNoneIn(stateDir);
 * scan.assertNoneIn("console", capturedOutput);
 * }</pre>
 */
public final class SecretScan {

    /** Shorter encoded forms are not looked for: they would match by chance. */
    static final int MIN_FORM_LENGTH = 6;
    /** Bytes before a finding shown with it. */
    static final int CONTEXT = 60;

    /** Form name to bytes, for every value. */
    private final Map<String, byte[]> forms;

    private SecretScan(Map<String, byte[]> forms) {
        this.forms = forms;
    }

    /** A scan for {@code values}; each should be at least {@value #MIN_FORM_LENGTH} characters. */
    public static SecretScan of(Collection<String> values) {
        Map<String, byte[]> forms = new LinkedHashMap<>();
        int n = 0;
        for (String value : values) {
            String label = "value " + (++n);
            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
            add(forms, label + " plain", value);
            for (int shift = 0; shift < 3; shift++) {
                add(forms, label + " base64 at offset " + shift, base64Core(bytes, shift));
            }
            add(forms, label + " JSON-escaped", json(value, false));
            add(forms, label + " JSON-escaped (ASCII)", json(value, true));
            add(forms, label + " JSON-escaped (slash)", json(value, false).replace("/", "\\/"));
        }
        return new SecretScan(forms);
    }

    /** The forms looked for, by name; for a test that wants to leak one on purpose. */
    public Map<String, String> forms() {
        Map<String, String> out = new LinkedHashMap<>();
        forms.forEach((k, v) -> out.put(k, new String(v, StandardCharsets.UTF_8)));
        return out;
    }

    /** What holds a value in {@code text}: one line per form found, naming {@code where}. */
    public List<String> findIn(String where, String text) {
        return find(where, text.getBytes(StandardCharsets.UTF_8));
    }

    /** What holds a value under {@code dir}: files whose path or content has one, one line per form. */
    public List<String> findIn(Path dir) {
        List<String> found = new ArrayList<>();
        if (!Files.exists(dir)) {
            return found;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.toList()) {
                String relative = dir.relativize(p).toString();
                found.addAll(find("the name " + relative, relative.getBytes(StandardCharsets.UTF_8)));
                if (Files.isRegularFile(p)) {
                    found.addAll(find(relative, Files.readAllBytes(p)));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return found;
    }

    public void assertNoneIn(String where, String text) {
        assertThat(findIn(where, text)).as("secret values in " + where).isEmpty();
    }

    public void assertNoneIn(Path dir) {
        assertThat(findIn(dir)).as("secret values under " + dir).isEmpty();
    }

    private List<String> find(String where, byte[] haystack) {
        List<String> found = new ArrayList<>();
        forms.forEach((name, needle) -> {
            int at = indexOf(haystack, needle);
            if (at >= 0) {
                // what comes before it says where it is, without repeating the value
                int from = Math.max(0, at - CONTEXT);
                String before = new String(haystack, from, at - from, StandardCharsets.UTF_8).replaceAll("\\p{Cntrl}", " ");
                found.add(where + ": " + name + " at byte " + at + ", after \"" + before + "\"");
            }
        });
        return found;
    }

    /** Where {@code needle} first is in {@code haystack}, or -1; Latin-1 maps each byte to one char, so this is byte-exact. */
    static int indexOf(byte[] haystack, byte[] needle) {
        return new String(haystack, StandardCharsets.ISO_8859_1).indexOf(new String(needle, StandardCharsets.ISO_8859_1));
    }

    private static void add(Map<String, byte[]> forms, String name, String form) {
        if (form.length() >= MIN_FORM_LENGTH) {
            forms.putIfAbsent(name, form.getBytes(StandardCharsets.UTF_8));
        }
    }

    /**
     * The part of the base64 of {@code shift} other bytes followed by {@code bytes} that no other
     * byte changes: the 6-bit groups lying wholly inside {@code bytes}.
     */
    static String base64Core(byte[] bytes, int shift) {
        ByteArrayOutputStream withLead = new ByteArrayOutputStream();
        withLead.write(new byte[shift], 0, shift);
        withLead.writeBytes(bytes);
        String all = Base64.getEncoder().withoutPadding().encodeToString(withLead.toByteArray());
        int firstWhole = Math.ceilDiv(shift * 8, 6);
        int pastLastWhole = Math.floorDiv((shift + bytes.length) * 8, 6);
        return firstWhole >= pastLastWhole ? "" : all.substring(firstWhole, pastLastWhole);
    }

    /** The characters JSON writes with a two-character escape. */
    private static final Map<Character, String> SHORT_ESCAPES = Map.of('"', "\\\"", '\\', "\\\\", '\n', "\\n",
            '\r', "\\r", '\t', "\\t", '\b', "\\b", '\f', "\\f");

    /** {@code value} as inside a JSON string; with {@code ascii}, every non-ASCII character escaped too. */
    static String json(String value, boolean ascii) {
        StringBuilder b = new StringBuilder();
        value.chars().forEach(c -> {
            String escape = SHORT_ESCAPES.get((char) c);
            if (escape != null) {
                b.append(escape);
            } else if (c < 0x20 || ascii && c > 0x7f) {
                b.append(String.format("\\u%04x", c));
            } else {
                b.append((char) c);
            }
        });
        return b.toString();
    }
}
