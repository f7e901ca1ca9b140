package dev.knotless.executor.toolkit;

import dev.knotless.executor.ShellPayload;
import dev.knotless.executor.StepPayload;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * A step that outlives its exec stream, and its runner: the shell scripts that run it in the
 * run's container (a Docker container, a pod's), and the one that reattaches to it. Every executor
 * whose steps are execs uses it (docs/design/executors.md).
 *
 * <p>An exec stream can end without an exit status (an engine or API server restart, a proxy's
 * idle cut, a dropped connection, a runner killed and restarted) while the step goes on in the
 * container. A step
 * writing straight into the exec's stdout would then block as soon as the pipe filled (Docker
 * stops draining a detached exec), so the step never writes to the exec at all:
 *
 * <pre>
 * exec (stdin: KEY line, framed payload)             files in DIR = /steps/.exec/KEY
 *   receiver: read key and payload
 *     follower &amp;: copy new bytes of out/err to the exec ──► runner (counts bytes per stream)   out, err, taken, status
 *               until status exists; exit with it
 *     copiers &amp;: cat o &gt;&gt;out, cat e &gt;&gt;err
 *     ( eval payload ) &gt;o 2&gt;e; wait for the copiers; echo $? &gt; status; wake the follower; exit with its status
 * after a cut, a new exec:  follower DIR OUT_OFFSET ERR_OFFSET
 * </pre>
 *
 * The key is a digest of the step's command ({@link #key}), so a runner that restarted finds the
 * step it had sent from the step alone; {@code taken} says its payload arrived whole. The exit
 * status still comes from the status channel: the follower exits with the step's recorded
 * status. Secrets stay in the receiver's memory and the step's environment, as before; the files
 * hold only the step's (unmasked) output, which the runner masks as it reads it.
 *
 * <p>The step runs in the receiver's foreground, so it starts with the signal dispositions the
 * exec gave (all default), as on every other executor; the follower runs in the background (a
 * non-interactive shell starts it with INT and QUIT ignored, which is what it wants). The
 * follower and its helpers ignore TERM and INT, and the receiver traps them (the follower ends
 * when the step has a status, or by KILL), so the exec still ends only with the step, as the
 * stopper expects. It polls (10 ms growing to 500 ms while nothing is written; every 250 ms while
 * output comes), and the step's end wakes it at once with {@code SIGUSR1}, so a short step costs
 * one or two polls. Each poll that finds output costs four processes ({@code wc}, {@code tail},
 * {@code head}, {@code sleep}), so the pace while output comes is what a chatty step pays: at
 * 10 ms it was half a core (bench/results/docker.md, "A running step's follower").
 *
 * <p>The step's stdout and stderr are pipes, as elsewhere, with a copier each between the step and
 * its file ({@link #COPIERS}).
 *
 * <p>Each receiver removes the directories of every step but the one before it, so at most two
 * steps' output is kept in the container (the previous step may still run while the next exec is
 * opened ahead).
 *
 * <p>What an executor must clear from the step's environment before the payload runs (the
 * kubelet's {@code KUBERNETES_*} variables) is its own: {@link #receiverScript} takes it.
 */
public final class DetachedStep {

    /**
     * The receiver's first byte on stdout, written once it has the whole payload: the runner then
     * knows the step was taken (and strips it; the step's output follows).
     */
    public static final char STARTED = 'K';

    /** The directory of the run's step records in the pod. */
    public static final String ROOT = "/steps/.exec";
    /** The follower's exit status when the step's files went away under it. */
    public static final int NO_SUCH_STEP = 124;

    /**
     * Sent to a receiver still waiting for its payload to end it at once: an empty key line, which
     * it refuses before it has made anything. A probe needs the one opened ahead gone, or a
     * cleanup round would find it a new process and stop it as the step's.
     */
    public static byte[] dismissal() {
        return new byte[] {'\n'};
    }

    /**
     * {@code follow DIR OUT ERR}: writes the bytes of {@code DIR/out} after offset OUT to stdout and
     * of {@code DIR/err} after ERR to stderr, as they grow, until {@code DIR/status} holds the
     * step's status and both are copied; then exits with that status. An empty file is not
     * measured, so a silent step costs no {@code wc}.
     */
    private static final String FOLLOW = String.join("\n",
            "follow() {",
            // a wake-up from the step's end (the receiver ignores USR1 until the follower is here);
            // one that comes while a wc or tail runs, not the wait, is remembered, so the next
            // sleep is skipped rather than slept through
            "  trap 'z=1' USR1",
            // ignored, not trapped: the stopper's kill -TERM -1 reaches the follower's wc, tail,
            // head and sleep too, and a killed wc or tail would end or garble the follow
            "  trap '' TERM INT",
            "  d=$1 o=$2 e=$3 t=0.01",
            "  while :; do",
            "    z=0 f=0; [ -s \"$d/status\" ] && f=1",
            "    n=0; [ -s \"$d/out\" ] && { n=$(wc -c <\"$d/out\") || exit " + NO_SUCH_STEP + "; }",
            "    m=0; [ -s \"$d/err\" ] && { m=$(wc -c <\"$d/err\") || exit " + NO_SUCH_STEP + "; }",
            "    if [ \"$n\" -gt \"$o\" ]; then tail -c +$((o + 1)) \"$d/out\" | head -c $((n - o)); o=$n; t=0.25; fi",
            "    if [ \"$m\" -gt \"$e\" ]; then tail -c +$((e + 1)) \"$d/err\" | head -c $((m - e)) >&2; e=$m; t=0.25; fi",
            "    if [ $f = 1 ]; then IFS= read -r s <\"$d/status\"; exit \"$s\"; fi",
            "    [ $z = 1 ] && continue",
            "    sleep $t & w=$!; wait $w 2>/dev/null; kill -KILL $w 2>/dev/null",
            "    case $t in 0.01) t=0.02;; 0.02) t=0.05;; 0.05) t=0.1;; 0.1) t=0.25;; *) t=0.5;; esac",
            "  done",
            "}");

    /**
     * The step's stdout and stderr are pipes (FIFOs in DIR), as a Docker exec's are, and a copier
     * each appends what comes through them to {@code out} and {@code err}. A file as the step's
     * own stdout would differ from every other executor where a program can tell, and lose output
     * where it cannot: {@code echo x >/dev/stdout} or {@code tee /dev/stderr} reopen the file with
     * O_TRUNC. The copiers ignore TERM and INT, so the stopper's {@code kill -TERM -1} leaves them
     * to copy the step's last words. Without {@code mkfifo} the files are the step's streams.
     */
    private static final String COPIERS = String.join("\n",
            "o=$d/out e=$d/err",
            "if mkfifo \"$d/o\" \"$d/e\" 2>/dev/null; then",
            "  ( trap '' TERM INT; exec cat \"$d/o\" >>\"$d/out\" ) & co=$!",
            "  ( trap '' TERM INT; exec cat \"$d/e\" >>\"$d/err\" ) & ce=$!",
            "  o=$d/o e=$d/e",
            "fi");

    /**
     * Waits for the copiers, so that the status is written after the step's last byte is in its
     * file. A process the step left running may hold the pipes open; as Docker does for an exec,
     * its output is cut 2 s after the step ended. A TERM (trapped) ends a wait early, hence the loops.
     *
     * <p>The timer holds none of the exec's streams: a timer told the copiers are done before it
     * had its sleep's pid left the sleep running, and an exec ends only when every holder of its
     * output has closed it, so such a sleep kept a step that left nothing behind open for exactly
     * 2 s, about one step in ten on a busy machine. It now kills its sleep whenever it was told,
     * and the receiver waits for it, so nothing of the step's machinery outlives the exec.
     */
    private static final String AWAIT_COPIERS = String.join("\n",
            "if [ -n \"${co-}\" ]; then",
            // the timer takes its sleep with it when told the copiers are done, however early:
            // told before it had the sleep's pid, it kills the sleep once it has it (g)
            "  ( trap '' TERM INT; g= t=; trap 'g=1; [ -n \"$t\" ] && kill -KILL $t' USR2; sleep 2 & t=$!;"
                    + " [ -n \"$g\" ] && kill -KILL $t; wait $t && kill -KILL $co $ce; exit 0 ) </dev/null >/dev/null 2>&1 & k=$!",
            "  while kill -0 $co 2>/dev/null; do wait $co; done",
            "  while kill -0 $ce 2>/dev/null; do wait $ce; done",
            "  kill -USR2 $k 2>/dev/null",
            // and waits for it: a timer or sleep left to end after the exec was a new process to
            // a cleanup round listing the environment's processes then, which killed it as the step's;
            // quietly, as a timer told before its trap was set ends of the signal, which shells report
            "  while kill -0 $k 2>/dev/null; do wait $k 2>/dev/null; done",
            "fi");

    /**
     * {@code sh -c RECEIVER sh KEEP}, a key line and a framed payload on stdin: removes the
     * records of every step but KEEP (the step that may still be running while this exec waits,
     * opened ahead), reads the key and makes the step's directory, then {@link
     * ShellPayload#RECEIVER_SCRIPT}'s reading and checks, then the step detached from the exec
     * and the follower. The clean-up happens while the exec waits, so a step opened ahead pays
     * only for its directory and its own fork. {@code beforeStep} runs in the step's subshell
     * just before the payload ({@code ""} for nothing): it may unset what the executor's
     * environment adds and no other executor has.
     */
    public static String receiverScript(String beforeStep) {
        return String.join("\n",
                "k=$1",
                "for x in " + ROOT + "/*; do [ \"$x\" = \"$k\" ] || rm -rf \"$x\"; done",
                "IFS= read -r key || { echo 'step payload: no key line' >&2; exit " + ShellPayload.TRUNCATED_EXIT + "; }",
                "case $key in ''|*[!0-9a-f]*) echo 'step payload: bad key line' >&2; exit " + ShellPayload.TRUNCATED_EXIT + ";; esac",
                "d=" + ROOT + "/$key",
                "mkdir -p \"$d\" && rm -f \"$d/taken\" \"$d/status\" && : >\"$d/out\" && : >\"$d/err\" || { echo \"step payload: cannot write $d\" >&2; exit "
                        + ShellPayload.TRUNCATED_EXIT + "; }",
                "IFS= read -r n || { echo 'step payload: no length line' >&2; exit " + ShellPayload.TRUNCATED_EXIT + "; }",
                "case $n in ''|*[!0-9]*) echo 'step payload: bad length line' >&2; exit " + ShellPayload.TRUNCATED_EXIT + ";; esac",
                "p=$(head -c \"$n\"; echo .)",
                "p=${p%.}",
                "case $p in *'",
                "}",
                "') ;; *) echo \"step payload: truncated (expected $n bytes)\" >&2; exit " + ShellPayload.TRUNCATED_EXIT + ";; esac",
                "exec </dev/null",
                ": >\"$d/taken\"",
                "printf " + STARTED,
                FOLLOW,
                // TERM and INT (the stopper's kill -TERM -1) must not end the receiver before the
                // step and its follower: the exec's end is what tells the stopper that the step is gone.
                "trap : TERM INT",
                // ignored, so that the follower cannot die of a wake-up sent before it set its trap
                "trap '' USR1",
                // the follower in the background (where the shell ignores INT and QUIT, as it wants),
                // the step in the foreground: a step started with & would begin with INT and QUIT
                // ignored, which no shell it runs could undo
                "( unset p; follow \"$d\" 0 0 ) &",
                "f=$!",
                COPIERS,
                "(",
                "trap - USR1",
                beforeStep,
                "eval \"$p\"",
                ") >>\"$o\" 2>>\"$e\"",
                "r=$?",
                AWAIT_COPIERS,
                // one write of a few bytes: the follower waits for the file to be non-empty
                "echo $r >\"$d/status\"",
                "unset p",
                "kill -USR1 $f 2>/dev/null",
                // a TERM ends a wait early; the exec ends with the follower, and with its status
                "while :; do wait $f; s=$?; kill -0 $f 2>/dev/null || break; done",
                "exit $s");
    }

    /** {@code sh -c REATTACH sh DIR OUT ERR}; run after {@link #taken} said the step is there. */
    public static final String REATTACH = String.join("\n", FOLLOW, "follow \"$@\"");

    private DetachedStep() {}

    /**
     * The step's key: a digest of its command, which holds no values (they are in the payload's
     * environment) and names the step within its run (the usual command runs {@code /steps/N}).
     */
    public static String key(StepPayload step) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String arg : step.command()) {
                sha.update(arg.getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha.digest(), 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }

    public static String directory(StepPayload step) {
        return ROOT + "/" + key(step);
    }

    /** What the receiver reads on stdin: the key line, then the framed payload. */
    public static byte[] input(StepPayload step) {
        byte[] key = (key(step) + "\n").getBytes(StandardCharsets.US_ASCII);
        byte[] payload = ShellPayload.framed(step);
        byte[] all = Arrays.copyOf(key, key.length + payload.length);
        System.arraycopy(payload, 0, all, key.length, payload.length);
        return all;
    }

    /**
     * The receiver of the next step, running {@code script} (a {@link #receiverScript}), leaving
     * {@code keep} (the step before it, or "") alone.
     */
    public static List<String> receiver(String script, String keep) {
        return List.of("/bin/sh", "-c", script, "sh", keep);
    }

    /**
     * Exits 0 when the step's payload arrived whole (its {@code taken} mark). A separate exec,
     * because any status the follower could use to say "no such step" is also a status a step
     * may exit with.
     */
    public static List<String> taken(String directory) {
        return List.of("/bin/sh", "-c", "[ -e \"$1/taken\" ]", "sh", directory);
    }

    public static List<String> reattach(String directory, long stdoutOffset, long stderrOffset) {
        return List.of("/bin/sh", "-c", REATTACH, "sh", directory, Long.toString(stdoutOffset), Long.toString(stderrOffset));
    }
}
