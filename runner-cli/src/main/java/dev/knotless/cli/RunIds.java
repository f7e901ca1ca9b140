package dev.knotless.cli;

import java.security.SecureRandom;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;

/** Run ids that sort by time and are safe as container, Job and file names: {@code 20261130-001900-3fa2c1}. */
final class RunIds {

    private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
    private static final SecureRandom RANDOM = new SecureRandom();

    private RunIds() {}

    static String next() {
        byte[] b = new byte[3];
        RANDOM.nextBytes(b);
        return FORMAT.format(ZonedDateTime.now(ZoneOffset.UTC)) + "-" + HexFormat.of().formatHex(b);
    }
}
