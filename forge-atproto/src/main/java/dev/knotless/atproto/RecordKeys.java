package dev.knotless.atproto;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The record key of a run's check: the run id itself when it is a valid record key (run ids such
 * as {@code 20261203-130837-af16fa} are), else an escaped form of it. The same run always gets
 * the same key, so a put of a later state replaces the earlier one: publishing is idempotent.
 *
 * <p>Record keys may hold {@code A-Z a-z 0-9 . - _ : ~}, 1 to 512 of them, and are never {@code .}
 * or {@code ..}. Every other byte of the id's UTF-8 form becomes {@code ~XX} (hex); {@code ~}
 * itself is escaped too, so two ids never share a key.
 */
final class RecordKeys {

    static final int MAX_LENGTH = 512;

    private RecordKeys() {}

    static String of(String runId) {
        Objects.requireNonNull(runId, "runId");
        if (runId.isEmpty()) {
            throw new IllegalArgumentException("a run id is not empty");
        }
        StringBuilder key = new StringBuilder(runId.length());
        HexFormat hex = HexFormat.of().withUpperCase();
        for (byte b : runId.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c < 0x80 && (Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_' || c == ':')) {
                key.append(c);
            } else {
                key.append('~').append(hex.toHexDigits(b));
            }
        }
        String k = key.toString();
        if (k.equals(".") || k.equals("..")) {
            k = k.replace(".", "~2E");
        }
        if (k.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("run id too long for a record key: " + runId.length() + " characters");
        }
        return k;
    }
}
