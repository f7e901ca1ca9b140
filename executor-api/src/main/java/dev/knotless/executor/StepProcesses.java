package dev.knotless.executor;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The processes a step started, and nothing else: listed before the step, stopped after it until
 * none of them remains. Used above the seam for every step with secrets, through the session like
 * any step, so it works the same on every executor whose image has {@code /bin/sh} and {@code /proc}
 * (docs/design/process-sets.md says why it is not a per-executor freeze).
 *
 * <p>A process is known by its pid and its start time (field 22 of {@code /proc/PID/stat}), so a
 * pid the kernel reused for a new process is new, and a process that rewrote its environment or
 * re-executed itself is still the same one. Processes that were there before the step (a service
 * an earlier step started, granted nothing of this step's) are left alone.
 *
 * <p>One exec per round: each pass sends STOP to every new process it finds, so nothing it stopped
 * can fork again, and passes repeat until one finds no new running process; then all of them get
 * KILL. A process forking every few milliseconds, a double-forking daemon and one hopping to a
 * new pid are all caught, because every child born between two passes is found by the next one:
 * its parent is either stopped already or ended during the pass, and a pass that saw a new
 * process end is never the last. The exec's own ancestors (the executor's shell
 * around the step) are spared, and so are all their descendants, wherever a pass meets them: a
 * {@link DetachedStep}'s follower, copiers and their helpers, were a round ever carried by one (a
 * process the step left cannot be among them: orphans go to PID 1, never to a shell that started
 * after them); PID 1 too, but not its children. The listing and the rounds are {@link
 * StepPayload.Kind#PROBE}s, so every executor runs them attached as one {@code sh}: the step
 * before may have filled the run's process limit, and a round must not need to fork.
 */
public final class StepProcesses {

    /** How the stopping ended: nothing of the step remains, or something does, with why. */
    public sealed interface Stopping {

        /** Every new process was stopped and killed; their pids (none when the step left nothing). */
        record Cleared(List<String> killed) implements Stopping {}

        /** Some new process could not be stopped before the deadline. */
        record Remaining(String reason) implements Stopping {}
    }

    /** Passes one exec makes before it hands back; the runner then asks for another round. */
    static final int PASSES_PER_ROUND = 100;
    static final int PASSES_RAN_OUT = 3;
    static final int REFUSED = 4;
    /** Rounds that did not run their script (a lost exec) before the stopping gives up. */
    static final int BROKEN_ROUNDS = 3;

    /** Every process but this shell, as {@code pid:starttime}, one a line. */
    static final String LIST = "for d in /proc/[0-9]*; do p=${d#/proc/}; [ \"$p\" = \"$$\" ] && continue; "
            + "read -r l < \"$d/stat\" || continue; l=${l##*) }; set -- $l; echo \"$p:${20}\"; done 2>/dev/null";

    /**
     * {@code sh -c STOP stop KEY...} with the keys of the processes before the step: stops every
     * other process but PID 1, the shell's own ancestors and their descendants, pass after pass,
     * then kills them and prints their pids. Exits 0 when the last pass found none left running, {@value #PASSES_RAN_OUT}
     * when the passes ran out first, {@value #REFUSED} when a process refused the signal (named on
     * stderr; another round would not do better).
     */
    static final String STOP = String.join("\n",
            "b=\" $* \" s='' t=' ' u='' a=' 1 ' p=$$ n=0",
            "while [ \"$p\" -gt 1 ] && read -r l < \"/proc/$p/stat\"; do a=\"$a$p \"; l=${l##*) }; set -- $l; p=$2; done 2>/dev/null",
            "while :; do",
            // per pass, as pids are met: c the carrier (the ancestors but PID 1, and their descendants),
            // x the others; a pid may have ended and come back as someone else's since the last pass
            "  f=0 c=${a# 1} x=' '",
            "  for d in /proc/[0-9]*; do",
            "    p=${d#/proc/}",
            // ancestors, and pids already stopped (a stopped process keeps its pid): no stat to read
            "    case $a$t in *\" $p \"*) continue;; esac",
            // a new process that ended under the pass may have forked one this pass did not list
            "    read -r l < \"$d/stat\" || { case $b in *\" $p:\"*) ;; *) f=1;; esac; continue; }",
            "    l=${l##*) }; set -- $l",
            // walk up to a known pid: /proc lists pids as text (1000 before 999), so a child may come first
            "    q=$2",
            "    while [ \"$q\" -gt 1 ]; do",
            "      case $c in *\" $q \"*) break;; esac",
            "      case $x$t in *\" $q \"*) q=1; break;; esac",
            "      read -r m < \"/proc/$q/stat\" || { q=1; break; }",
            "      m=${m##*) }; m=${m#* }; q=${m%% *}",
            "    done",
            "    [ \"$q\" -gt 1 ] && { c=\"$c$p \"; continue; }",
            "    x=\"$x$p \"",
            "    [ \"$1\" = Z ] && continue",
            "    k=$p:${20}",
            "    case \"$b$s \" in *\" $k \"*) continue;; esac",
            "    if kill -STOP \"$p\"; then s=\"$s $k\" t=\"$t$p \" f=1; elif [ -e \"$d\" ]; then u=\"$u $p\"; else f=1; fi",
            "  done 2>/dev/null",
            "  [ $f = 0 ] && break",
            "  n=$((n + 1)); [ $n -lt " + PASSES_PER_ROUND + " ] || break",
            "done",
            "for k in $s; do kill -KILL \"${k%%:*}\"; done 2>/dev/null",
            "for k in $s; do echo \"${k%%:*}\"; done",
            "[ -z \"$u\" ] || echo \"pid$u refused STOP\" >&2",
            "[ -z \"$u\" ] || exit " + REFUSED,
            "[ $f = 0 ] || exit " + PASSES_RAN_OUT);

    private final Set<String> before;

    private StepProcesses(Set<String> before) {
        this.before = before;
    }

    /**
     * Lists the environment's processes before a step.
     *
     * @throws ExecutorException when they cannot be listed (and the signal has not fired)
     */
    public static StepProcesses before(Session session, StopSignal signal) throws ExecutorException {
        Captured listing = Captured.run(session, StepPayload.probe("list processes", List.of("/bin/sh", "-c", LIST)), signal);
        if (!(listing.outcome() instanceof StepOutcome.Exited e && e.exitCode() == 0) && !signal.isStopped()) {
            throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                    "the environment's processes could not be listed: " + listing.describe()));
        }
        Set<String> keys = new LinkedHashSet<>();
        for (String line : listing.stdout().split("\n")) {
            if (line.matches("\\d+:\\d+")) {
                keys.add(line);
            }
        }
        return new StepProcesses(keys);
    }

    /**
     * Stops and kills every process that was not there before, round after round, until a round
     * finds none left running or {@code within} has passed.
     */
    public Stopping stopNew(Session session, StopSignal signal, Duration within) {
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", STOP, "stop"));
        command.addAll(before);
        StepPayload round = StepPayload.probe("stop leftovers", command);
        Set<String> killed = new LinkedHashSet<>();
        String last = "";
        int broken = 0;
        try (StopSignal bounded = signal.child(within)) {
            while (!bounded.isStopped() && broken < BROKEN_ROUNDS) {
                Captured r = Captured.run(session, round, bounded);
                for (String line : r.stdout().split("\n")) {
                    if (line.matches("\\d+")) {
                        killed.add(line);
                    }
                }
                int code = r.outcome() instanceof StepOutcome.Exited e ? e.exitCode() : -1;
                if (code == 0) {
                    return new Stopping.Cleared(List.copyOf(killed));
                }
                last = r.describe();
                if (code == REFUSED) {
                    break;
                }
                if (code != PASSES_RAN_OUT) {
                    broken++;
                }
            }
            if (bounded.isStopped() && !signal.isStopped()) {
                last = "new ones still appeared after " + within.toSeconds() + " s";
            }
        }
        return new Stopping.Remaining("processes it started could not all be stopped" + (last.isEmpty() ? "" : " (" + last + ")"));
    }

    /** A listing's or a round's outcome, with what it wrote. */
    private record Captured(StepOutcome outcome, String stdout, String stderr) {

        static Captured run(Session session, StepPayload payload, StopSignal signal) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            StepOutcome outcome = session.run(payload, (stream, buffer, offset, length) ->
                    (stream == OutputSink.Stream.STDOUT ? out : err).write(buffer, offset, length), signal);
            return new Captured(outcome, out.toString(StandardCharsets.US_ASCII), err.toString(StandardCharsets.US_ASCII));
        }

        /** One line: the failure's reason, the exit code, or stopped, and the first line of stderr. */
        String describe() {
            String how = switch (outcome) {
                case StepOutcome.Exited e -> "exit " + e.exitCode();
                case StepOutcome.TimedOut t -> "timed out";
                case StepOutcome.Cancelled c -> "cancelled";
                case StepOutcome.Failed f -> f.failure().reason();
            };
            String first = stderr.strip().lines().findFirst().orElse("");
            return first.isEmpty() ? how : how + ": " + first;
        }
    }
}
