package dev.knotless.cli;

import dev.knotless.runner.run.Cancellation;
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
 */
final class Interrupts implements AutoCloseable {

    private final List<Signal> signals = new ArrayList<>();
    private final List<SignalHandler> previous = new ArrayList<>();

    private Interrupts() {}

    static Interrupts cancelOn(Cancellation cancellation, Console console) {
        Interrupts interrupts = new Interrupts();
        for (String name : List.of("INT", "TERM")) {
            Signal signal = new Signal(name);
            SignalHandler handler = s -> {
                if (cancellation.isCancelled()) {
                    Runtime.getRuntime().halt(130);
                }
                console.line("cancelling (SIG" + name + "); press Ctrl-C again to quit at once");
                cancellation.cancel("cancelled by SIG" + name);
            };
            interrupts.previous.add(Signal.handle(signal, handler));
            interrupts.signals.add(signal);
        }
        return interrupts;
    }

    @Override
    public void close() {
        for (int i = 0; i < signals.size(); i++) {
            Signal.handle(signals.get(i), previous.get(i));
        }
    }
}
