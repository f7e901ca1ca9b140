package dev.knotless.node.protocol;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What an allocation holds of its node for placement: the CPU and memory its run asked for, and
 * whether it is an untrusted run's, which has the node to itself. It travels as labels of the
 * signed {@code create_allocation} and comes back in the node's signed allocation list, so every
 * runner that shares the node sees what the others hold, and the node itself can refuse a booking
 * that does not fit ({@code node has no room}).
 *
 * <p>Labels rather than fields: the protocol's JSON is strict both ways, and a booking is exactly
 * the kind of runner bookkeeping labels already carry. An allocation without these labels (made
 * by an older runner) holds nothing.
 */
public record Booking(long milliCpu, long memoryBytes, boolean exclusive) {

    public static final String CPU = "dev.knotless.booked-millicpu";
    public static final String MEMORY = "dev.knotless.booked-memory";
    public static final String EXCLUSIVE = "dev.knotless.exclusive";
    /** The start of the failure a node answers when a booking does not fit: the runner places the run again. */
    public static final String NO_ROOM = "node has no room: ";

    public static final Booking NONE = new Booking(0, 0, false);

    public Booking {
        if (milliCpu < 0 || memoryBytes < 0) {
            throw new IllegalArgumentException("a booking is not negative");
        }
    }

    /** The labels that carry it; nothing for what is zero. */
    public Map<String, String> labels() {
        Map<String, String> labels = new LinkedHashMap<>();
        if (milliCpu > 0) {
            labels.put(CPU, Long.toString(milliCpu));
        }
        if (memoryBytes > 0) {
            labels.put(MEMORY, Long.toString(memoryBytes));
        }
        if (exclusive) {
            labels.put(EXCLUSIVE, "true");
        }
        return labels;
    }

    /**
     * The booking an allocation's labels carry. A value that is not a plain non-negative number
     * books nothing: labels pass {@link Names#labels} but are another runner's words.
     */
    public static Booking of(Map<String, String> labels) {
        return new Booking(number(labels.get(CPU)), number(labels.get(MEMORY)), "true".equals(labels.get(EXCLUSIVE)));
    }

    public Booking plus(Booking other) {
        return new Booking(milliCpu + other.milliCpu, memoryBytes + other.memoryBytes, exclusive || other.exclusive);
    }

    private static long number(String value) {
        return Optional.ofNullable(value).filter(v -> v.matches("[0-9]{1,15}")).map(Long::parseLong).orElse(0L);
    }
}
