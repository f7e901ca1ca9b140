package dev.knotless.runner.run.step.protocol;

import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the run's command reading remembers from one line to the next, across steps as GitHub's
 * runner's one command manager per job does: the token that {@code ::stop-commands::} paused
 * commands until, and how many values steps added to the masks.
 *
 * <p>Concurrency: thread-safe.
 */
final class CommandState {

    /** The commands GitHub's runner registers; {@code internal-set-repo-path} is its own plugins' only. */
    static final Set<String> COMMANDS = Set.of("stop-commands", "add-mask", "add-matcher", "remove-matcher", "debug",
            "warning", "error", "notice", "group", "endgroup", "echo", "set-env", "set-output", "save-state", "add-path");

    private @Nullable String stopToken;
    private int added;

    /** Whether {@code name} is a command now: one of {@link #COMMANDS}, or the token that resumes them. */
    synchronized boolean registered(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return COMMANDS.contains(lower) || (stopToken != null && stopToken.equalsIgnoreCase(name));
    }

    synchronized @Nullable String stopToken() {
        return stopToken;
    }

    /** Commands pause until a command named {@code token}; null resumes them. */
    synchronized void stopUntil(@Nullable String token) {
        stopToken = token;
    }

    /** Takes one more added mask if fewer than {@code most} were taken; false when none is left. */
    synchronized boolean addMask(int most) {
        if (added >= most) {
            return false;
        }
        added++;
        return true;
    }
}
