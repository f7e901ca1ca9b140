package dev.knotless.runner.daemon;

/**
 * Where the daemon says what it does: one line per event, run start and run finish, and one line per
 * repository that could not be read. Called from the polling thread and from run threads at once:
 * implementations are thread-safe.
 */
@FunctionalInterface
public interface DaemonLog {

    /** Says nothing. */
    DaemonLog NONE = line -> {};

    /** One line, without a line break. */
    void line(String line);
}
