package dev.knotless.cache;

import dev.knotless.tar.Bounded;
import java.util.List;

/**
 * What a prune removed: whole layers, and stale files (staging files of runs that never finished,
 * leftovers of a crash); {@code totalBytes} is what the store holds afterwards.
 */
public record PruneReport(List<Entry> removed, int staleFiles, long staleBytes, long totalBytes) {

    public PruneReport {
        removed = List.copyOf(removed);
    }

    /** Bytes of the removed layers plus stale files. */
    public long freedBytes() {
        return staleBytes + removed.stream().mapToLong(Entry::bytes).sum();
    }

    /** One line for a log: {@code removed 3 layers and 1 stale file (41 MiB); 1.2 GiB stored}. */
    public String describe() {
        return "removed " + removed.size() + (removed.size() == 1 ? " layer" : " layers")
                + " and " + staleFiles + (staleFiles == 1 ? " stale file" : " stale files")
                + " (" + Bounded.bytes(freedBytes()) + "); " + Bounded.bytes(totalBytes) + " stored";
    }
}
