package dev.knotless.time;

/**
 * A monotonic source of nanoseconds: what every deadline and timeout of the runner is measured
 * with, so that a wall clock stepped (by NTP, a suspended VM, an operator) moves none of them.
 * Only differences between two readings mean anything. Wall time ({@link java.time.Clock}) stays
 * for what is shown or stored: a check's times, a cache entry's last use.
 */
@FunctionalInterface
public interface Ticker {

    /** The JVM's monotonic clock, {@link System#nanoTime}. */
    Ticker SYSTEM = System::nanoTime;

    long nanos();
}
