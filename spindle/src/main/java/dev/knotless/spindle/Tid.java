package dev.knotless.spindle;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ThreadLocalRandom;

/**
 * ATProto's timestamp identifiers: 13 characters of base32-sortable, 53 bits of microseconds since
 * the epoch then 10 of a random clock id, so keys sort as they were made. Status events carry one
 * as their record key, as tangled's do.
 */
final class Tid {

    private static final String ALPHABET = "234567abcdefghijklmnopqrstuvwxyz";

    private final Clock clock;
    private final long clockId = ThreadLocalRandom.current().nextLong(1024);
    private long last;

    Tid(Clock clock) {
        this.clock = clock;
    }

    synchronized String next() {
        Instant now = clock.instant();
        long micros = Math.max(now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000, last + 1);
        last = micros;
        long v = (micros << 10) | clockId;
        char[] out = new char[13];
        for (int i = 12; i >= 0; i--) {
            out[i] = ALPHABET.charAt((int) (v & 31));
            v >>>= 5;
        }
        return new String(out);
    }
}
