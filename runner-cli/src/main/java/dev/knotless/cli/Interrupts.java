package dev.knotless.cli;

import dev.knotless.runner.run.request.Cancellation;
import java.util.ArrayList;
import java.util.List;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Turns the first Ctrl-C (SIGINT) or SIGTERM into a clean cancel: running steps get TERM then
 * KILL after the grace, checks say cancelled, environments are deleted, the summary prints. A
 * second signal quits at once with 130.
 *
 * <p>Why sun.misc.Signal: a shutdown hook cannot choose the exit status or let the main thread
 * finish its cleanup before the JVM exits; the JDK offers no public API for signal handlers.
 *
 * <p>A signal that was ignored when the process started stays ignored: the JVM installs no
 * handler over it and says nothing (the previous handler comes back as {@code SIG_IGN}). A
 * script's background job starts with SIGINT ignored, and so does every process it starts; then
 * Ctrl-C cannot cancel, and the console says so at once rather than leaving a run that goes on
 * as if the signal had never come.
 */
final class Interrupts implements AutoCloseable {

    private final List<Signal> signals = new ArrayList<>();
    private final List<SignalHandler> previous = new ArrayList<>();

    private Interrupts() {}

    static Interrupts cancelOn(Cancellation cancellation, Console console) {
        Interrupts interrupts = new Interrupts();
        List<String> ignored = new ArrayList<>();
        for (String name : List.of("INT", "TERM")) {
            Signal signal = new Signal(name);
            SignalHandler handler = s -> {
                if (cancellation.isCancelled()) {
                    Runtime.getRuntime().halt(130);
                }
                console.line("cancelling (SIG" + name + "); press Ctrl-C again to quit at once");
                cancellation.cancel("cancelled by SIG" + name);
            };
            SignalHandler before = Signal.handle(signal, handler);
            if (before == SignalHandler.SIG_IGN) {
                ignored.add("SIG" + name);
            }
            interrupts.previous.add(before);
            interrupts.signals.add(signal);
        }
        if (!ignored.isEmpty()) {
            console.line(ignoredNotice(ignored));
        }
        return interrupts;
    }

    /** What the console says when {@code ignored} (SIGINT, SIGTERM or both) cannot cancel. */
    private static String ignoredNotice(List<String> ignored) {
        String which = String.join(" and ", ignored);
        String cannot = ignored.size() > 1 ? "neither can cancel"
                : ignored.contains("SIGINT") ? "Ctrl-C cannot cancel; SIGTERM can" : "it cannot cancel; SIGINT can";
        return which + (ignored.size() > 1 ? " were" : " was")
                + " ignored when this process started (as in a script's background job), so " + cannot;
    }

    @Override
    public void close() {
        for (int i = 0; i < signals.size(); i++) {
            Signal.handle(signals.get(i), previous.get(i));
        }
    }
}
