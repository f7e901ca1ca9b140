package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Hardening;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The contract's run environment as a step observes it (docs/reference/run-environment.md): one
 * step, uploaded and run as the runner runs it ({@code /bin/sh -e /steps/1}), reports its signal
 * dispositions, seccomp, privileges, umask, user, home, working directory, the layout's modes, the
 * kinds of its standard streams, its environment's names and its host name. Every executor must
 * give the one answer below; what may differ is listed, with its reason, in {@link #DELIBERATE}.
 * The second scenario is why the signal dispositions matter: a child process group of the step
 * gets the INT it traps.
 * Part of {@link ExecutorContract}, which every executor's integration test extends.
 */
public interface RunEnvironmentContract {

    /** The test's runner, executor and sessions. */
    ContractRun contract();

    /**
     * Prints {@code key=value} lines. The status fields are a child's ({@code awk}'s), which is what
     * a test suite the step starts gets: a shell's own can differ (BusyBox ash ignores QUIT for
     * itself, not for what it runs). {@code $$} is the step's shell, whose streams are the step's.
     */
    String PROBE = """
            awk -F ':[ \t]*' '/^(SigIgn|SigBlk|Seccomp|NoNewPrivs|CapEff):/ { print $1 "=" $2 }' /proc/self/status
            echo "umask=$(umask)"
            echo "id=$(id)"
            echo "HOME=$HOME"
            echo "cwd=$(pwd)"
            for d in /work /steps /outputs; do echo "mode $d=$(stat -c %a $d)"; done
            for n in 0 1 2; do echo "fd$n=$(readlink /proc/$$/fd/$n)"; done
            echo "env=$(awk 'BEGIN { for (k in ENVIRON) print k }' | sort | tr '\\n' ' ')"
            echo "hostname=$(hostname)"
            """;

    /**
     * The one answer, from the default hardening, the test image (root, HOME=/root) and the run
     * layout. No signal ignored: a test suite checking its own Ctrl-C
     * handling needs INT and QUIT at their defaults; Seccomp 2: system calls are filtered.
     */
    static Map<String, String> expected() {
        return parse("""
                SigIgn=0000000000000000
                SigBlk=0000000000000000
                Seccomp=2
                NoNewPrivs=1
                CapEff=%s
                umask=0022
                id=uid=0(root) gid=0(root) groups=0(root)
                HOME=/root
                cwd=%s
                mode /work=755
                mode /steps=755
                mode /outputs=755
                fd0=/dev/null
                fd1=pipe
                fd2=pipe
                env=CI HOME HOSTNAME PATH PWD SHLVL
                """.formatted(capabilityMask(Hardening.DEFAULT), RunLayout.WORK));
    }

    /** A field that may differ on one executor, why, and the rule it keeps there. */
    record Deliberate(String field, String executor, String reason, Predicate<String> rule) {}

    /**
     * What may differ, and why (docs/reference/run-environment.md); nothing else may. The host
     * name differs on every executor and is checked by {@link #HOSTNAME_RULE}.
     */
    List<Deliberate> DELIBERATE = List.of(
            new Deliberate("fd1", "kubernetes", "a step's output goes to files in the pod that the runner follows,"
                    + " so that it outlives its exec stream and a runner restart", v -> v.startsWith("file /steps/.exec/")),
            new Deliberate("fd2", "kubernetes", "as stdout", v -> v.startsWith("file /steps/.exec/")));

    String HOSTNAME_RULE = "each executor names the run's host after what it made (container id, pod name, runc id):"
            + " a DNS label, never the runner host's name";

    Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    @Test
    default void aStepSeesTheSameRunEnvironmentOnEveryExecutor() throws Exception {
        Session s = contract().open();
        s.upload(RunLayout.STEPS, out -> ContractSupport.writeTar(out, Map.of("1", PROBE.getBytes(StandardCharsets.UTF_8))),
                StopSignal.none());
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(new StepPayload("probe", List.of("/bin/sh", "-e", RunLayout.STEPS + "/1"),
                Map.of("CI", "true")), out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));

        String executor = contract().executor().name();
        Map<String, String> seen = parse(out.stdout());
        Map<String, String> expected = expected();
        String hostname = seen.remove("hostname");
        assertThat(hostname).as(HOSTNAME_RULE).matches(DNS_LABEL).isNotEqualTo(InetAddress.getLocalHost().getHostName());
        for (Deliberate d : DELIBERATE) {
            if (d.executor().equals(executor) && seen.containsKey(d.field())) {
                assertThat(seen.get(d.field())).as("%s on %s: %s", d.field(), executor, d.reason()).matches(d.rule());
                seen.put(d.field(), expected.get(d.field()));
            }
        }
        assertThat(seen).as("the run environment a step observes on %s", executor).containsExactlyInAnyOrderEntriesOf(expected);
    }

    /**
     * A step's child in a process group of its own traps INT, and the step sends INT to that group:
     * the child's handler runs. It cannot where the step started with INT ignored (a shell cannot
     * trap a signal ignored on its entry), which is why a test suite's own Ctrl-C tests need it.
     * The child is started in the foreground (a non-interactive shell's {@code &} ignores INT in
     * what it starts), and the sender in the background; the sender kills the group after 5 s so
     * a failure ends the step.
     */
    @Test
    default void aChildProcessGroupOfAStepGetsTheInterruptItTraps() throws Exception {
        Session s = contract().open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(ContractSupport.sh("interrupt", """
                rm -f /tmp/int-group /tmp/int-killed
                (
                  i=0; while [ ! -s /tmp/int-group ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
                  g=$(cat /tmp/int-group)
                  sleep 0.2; kill -INT -"$g"
                  sleep 5; kill -KILL -"$g" && echo "no handler ran; killed" >/tmp/int-killed
                ) >/dev/null 2>&1 &
                sender=$!
                setsid sh -c 'trap "echo got-int; exit 0" INT; echo $$ >/tmp/int-group; while :; do sleep 0.1; done' || echo "child ended $?"
                kill $sender 2>/dev/null || cat /tmp/int-killed
                """), out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).as("on %s", contract().executor().name()).startsWith("got-int\n");
    }

    /** {@code key=value} lines in their order, the streams' links as their kinds. */
    private static Map<String, String> parse(String stdout) {
        Map<String, String> seen = new LinkedHashMap<>();
        stdout.lines().forEach(line -> {
            int eq = line.indexOf('=');
            String key = line.substring(0, eq);
            String value = line.substring(eq + 1).strip();
            seen.put(key, key.startsWith("fd") ? streamKind(value) : value);
        });
        return seen;
    }

    /** {@code pipe:[123]} is a pipe, {@code socket:[…]} a socket; a path other than a device is a file; a kind stays. */
    private static String streamKind(String link) {
        if (link.startsWith("pipe:")) {
            return "pipe";
        }
        if (link.startsWith("socket:")) {
            return "socket";
        }
        return link.startsWith("/") && !link.startsWith("/dev/") ? "file " + link : link;
    }

    private static String capabilityMask(Hardening hardening) {
        long mask = 0;
        for (String capability : hardening.capabilities()) {
            mask |= 1L << IsolationContract.CAPABILITY_BITS.get(capability);
        }
        return String.format("%016x", mask);
    }
}
