package dev.knotless.checks;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Recognises a file's media type from its first bytes; a name can lie, magic numbers rarely do. */
public final class MediaTypes {

    /** How many leading bytes {@link #sniff} looks at. */
    public static final int SNIFF_BYTES = 512;

    private MediaTypes() {}

    public static String sniff(byte[] head, int length) {
        byte[] b = Arrays.copyOf(head, Math.min(length, head.length));
        if (startsWith(b, 0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A)) {
            return "image/png";
        }
        if (startsWith(b, 0xFF, 0xD8, 0xFF)) {
            return "image/jpeg";
        }
        if (startsWith(b, 'G', 'I', 'F', '8')) {
            return "image/gif";
        }
        if (startsWith(b, 'R', 'I', 'F', 'F') && b.length >= 12 && b[8] == 'W' && b[9] == 'E' && b[10] == 'B' && b[11] == 'P') {
            return "image/webp";
        }
        if (startsWith(b, '%', 'P', 'D', 'F', '-')) {
            return "application/pdf";
        }
        if (b.length == 0) {
            return "text/plain";
        }
        String text = utf8(b);
        if (text == null) {
            return "application/octet-stream";
        }
        String t = text.stripLeading();
        if (t.startsWith("<svg") || (t.startsWith("<?xml") && t.contains("<svg"))) {
            return "image/svg+xml";
        }
        if (t.startsWith("{") || t.startsWith("[")) {
            return "application/json";
        }
        return "text/plain";
    }

    private static boolean startsWith(byte[] b, int... magic) {
        if (b.length < magic.length) {
            return false;
        }
        for (int i = 0; i < magic.length; i++) {
            if ((b[i] & 0xFF) != magic[i]) {
                return false;
            }
        }
        return true;
    }

    /** The text when the bytes are UTF-8 without NUL (a cut multi-byte tail is allowed), else null. */
    private static String utf8(byte[] b) {
        int end = b.length;
        // A sniff window may cut a multi-byte character; drop an incomplete tail of up to 3 bytes.
        for (int back = 0; back < 3 && end > 0 && (b[end - 1] & 0xC0) == 0x80; back++) {
            end--;
        }
        if (end > 0 && (b[end - 1] & 0xC0) == 0xC0) {
            end--;
        }
        for (int i = 0; i < end; i++) {
            if (b[i] == 0) {
                return null;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(b, 0, end)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
