package dev.knotless.cache;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;

/**
 * A runner that restores and promotes one key forever, for {@link CrashSafetyTest} to kill with
 * SIGKILL. Arguments: the store's root and the first generation. Prints {@code ready} once its
 * first promote is done. Each generation's tar holds one file whose first 8 bytes are the
 * generation and whose rest follows from it, so a reader can tell a whole layer from a mix.
 */
final class PromoteLoop {

    static final CacheKey KEY = new CacheKey("acme/widgets", "ci:/root/.m2");
    private static final int SIZE = 2 << 20;

    private PromoteLoop() {}

    public static void main(String[] args) throws IOException {
        CacheStore store = new CacheStore(Path.of(args[0]), 1L << 30, Clock.systemUTC());
        long first = Long.parseLong(args[1]);
        for (long generation = first; ; generation++) {
            store.base(KEY, "main", "main");
            store.promote(Tars.upper(store, KEY, "run-" + generation, tarOf(generation)), "main");
            if (generation == first) {
                System.out.println("ready");
                System.out.flush();
            }
        }
    }

    static byte[] tarOf(long generation) {
        byte[] content = Tars.random(generation, SIZE);
        ByteBuffer.wrap(content).putLong(generation);
        return Tars.withFile("generation", content);
    }

    /** The generation a restored tar is a whole copy of; fails if it is none. */
    static long generationOf(byte[] tar) {
        // The file's data starts after its 512-byte header (a short ASCII name needs no PAX header).
        long generation = ByteBuffer.wrap(tar, 512, 8).getLong();
        if (!Arrays.equals(tar, tarOf(generation))) {
            throw new AssertionError("restored tar is not a whole layer of any generation");
        }
        return generation;
    }
}
