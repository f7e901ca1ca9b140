package dev.knotless.testkit;

import dev.knotless.executor.Hardening;
import dev.knotless.executor.RunLayout;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What a step can observe about how it was started: the probe that asks, the one answer every
 * executor must give, and the differences that are deliberate, each with its reason. {@link
 * RunEnvironmentContract} holds every executor to it; {@link #table} is the table in
 * docs/reference/run-environment.md, so the page says what the contract checks.
 */
public final class RunEnvironment {

    /** The executors, in the order of the page's columns. */
    public static final List<String> EXECUTORS = List.of("docker", "kubernetes", "node");

    /**
     * Prints {@code key=value} lines. The status and limits fields are a child's ({@code awk}'s),
     * which is what a test suite the step starts gets: a shell's own can differ (BusyBox ash
     * ignores QUIT for itself, not for what it runs). {@code $$} is the step's shell, whose streams
     * are the step's; a stream is printed as stat's file type and its link.
     */
    public static final String PROBE = """
            awk -F ':[ \t]*' '/^(SigIgn|SigBlk|Seccomp|NoNewPrivs|CapEff):/ { print $1 "=" $2 }' /proc/self/status
            awk '/^Max (open files|processes|core file size|stack size|locked memory) / {
              n = $0; sub(/ +[^ ]+ +[^ ]+ +[^ ]+ *$/, "", n); print "rlimit " n "=" $(NF-2) "/" $(NF-1) }' /proc/self/limits
            echo "umask=$(umask)"
            echo "id=$(id)"
            echo "HOME=$HOME"
            echo "cwd=$(pwd)"
            for d in /work /steps /outputs; do echo "mode $d=$(stat -c '%a %U:%G' $d)"; done
            for n in 0 1 2; do echo "fd$n=$(stat -L -c %F /proc/$$/fd/$n):$(readlink /proc/$$/fd/$n)"; done
            echo "env=$(awk 'BEGIN { for (k in ENVIRON) print k }' | sort | tr '\\n' ' ')"
            echo "hostname=$(hostname)"
            echo "hosts localhost=$(grep -qE '^127\\.0\\.0\\.1[[:space:]](.*[[:space:]])?localhost([[:space:]]|$)' /etc/hosts && echo yes || echo no)"
            echo "hosts self=$(grep -qwF "$(hostname)" /etc/hosts && echo yes || echo no)"
            echo "time zone=$(date +%Z)"
            p=$$ a=; while [ "$p" -gt 1 ]; do p=$(awk '{ print $4 }' /proc/$p/stat); [ "$p" -gt 0 ] && a="$a$(cat /proc/$p/comm) "; done
            echo "above the step=$a"
            if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
              echo "cgroup memory=$(cat /sys/fs/cgroup/memory.max)"
              echo "cgroup cpu=$(cat /sys/fs/cgroup/cpu.max)"
              echo "cgroup pids=$(cat /sys/fs/cgroup/pids.max)"
            else
              echo "cgroup memory=$(cat /sys/fs/cgroup/memory/memory.limit_in_bytes)"
              echo "cgroup cpu=$(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us)"
              echo "cgroup pids=$(cat /sys/fs/cgroup/pids/pids.max)"
            fi
            """;

    /**
     * The one answer, from the default hardening, the test image (root, HOME=/root, UTC) and the
     * run layout. No signal ignored: a test suite checking its own Ctrl-C handling needs INT and
     * QUIT at their defaults; Seccomp 2: system calls are filtered.
     */
    public static Map<String, String> expected() {
        return lines("""
                SigIgn=0000000000000000
                SigBlk=0000000000000000
                Seccomp=2
                NoNewPrivs=1
                CapEff=%s
                umask=0022
                id=uid=0(root) gid=0(root) groups=0(root)
                HOME=/root
                cwd=%s
                mode /work=755 root:root
                mode /steps=755 root:root
                mode /outputs=755 root:root
                fd0=/dev/null
                fd1=pipe
                fd2=pipe
                env=CI HOME HOSTNAME PATH PWD SHLVL
                hosts localhost=yes
                hosts self=yes
                time zone=UTC
                above the step=
                """.formatted(capabilityMask(Hardening.DEFAULT), RunLayout.WORK));
    }

    /**
     * The fields that are not hardening: a plain {@code docker run} of the same image gives the
     * same (with its own working directory, no run layout, and the engine's default hardening).
     */
    public static final Set<String> NOT_HARDENING = Set.of("SigIgn", "SigBlk", "umask", "id", "HOME", "fd0", "fd1", "fd2",
            "hosts localhost", "hosts self", "time zone", "above the step");

    /**
     * A field (or, for {@code rlimit} and {@code cgroup}, a group of fields) whose value may differ
     * on the executors {@code shown} names: what it is on each, why, and the rule it keeps.
     */
    public record Deliberate(String field, Map<String, String> shown, String reason, Predicate<String> rule) {

        public boolean covers(String key, String executor) {
            return shown.containsKey(executor) && (key.equals(field) || key.startsWith(field + " "));
        }

        static Map<String, String> onEach(String docker, String kubernetes, String node) {
            return Map.of("docker", docker, "kubernetes", kubernetes, "node", node);
        }
    }

    private static final Pattern LIMIT = Pattern.compile("(\\d+|unlimited)/(\\d+|unlimited)");

    /** What may differ, and why; nothing else may. */
    public static final List<Deliberate> DELIBERATE = List.of(
            new Deliberate("hostname", Deliberate.onEach("the container id's first 12 hex digits", "the pod's name", "the allocation's id"),
                    "each executor names the host after what it made; always a DNS label, never the runner host's name",
                    Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?").asMatchPredicate()),
            new Deliberate("above the step", Map.of("docker", "`sh`", "kubernetes", "`sh`"),
                    "the container's receiver shell (`DetachedStep`), which keeps the step's output and status past its exec"
                            + " stream and a runner restart; on node the step's parent is outside its PID namespace",
                    "sh"::equals),
            new Deliberate("rlimit", Deliberate.onEach("dockerd's", "the container runtime's", "the node agent's"),
                    "inherited, as under `docker run` on the same engine: Kubernetes has no way to set them, and a value"
                            + " above the engine's own hard limit would fail every start",
                    LIMIT.asMatchPredicate()),
            new Deliberate("cgroup", Deliberate.onEach("the run's `resources`, none where it sets none; 256 processes",
                    "the run's `resources` as requests, limits as docs/design/kubernetes.md says; processes: the kubelet's"
                            + " `podPidsLimit` (none on the test cluster)",
                    "the run's `resources`, 2 GiB and 1 CPU where it sets none; 256 processes"),
                    "set from the workflow within the runner's ceilings (docs/design/resource-ceilings.md), which the"
                            + " contract's limits scenario checks on every executor; for a run that sets none, the runner's"
                            + " `--default-memory` gives every executor the same memory limit (and `--default-cpu` the same CPU, where"
                            + " a Kubernetes operator sets `--cpu-limit`)",
                    v -> !v.isBlank()));

    private RunEnvironment() {}

    /** The probe's output as fields, each stream as what a program can tell with {@code fstat}. */
    public static Map<String, String> observed(String stdout) {
        Map<String, String> seen = lines(stdout);
        seen.replaceAll((key, value) -> key.matches("fd[0-9]") ? streamKind(value) : value);
        return seen;
    }

    /**
     * The page's table: a row per field, a column per executor, and the reasons of what differs.
     */
    public static String table() {
        StringBuilder t = new StringBuilder("| what | " + String.join(" | ", EXECUTORS) + " |\n| --- |"
                + " --- |".repeat(EXECUTORS.size()) + "\n");
        Map<String, String> rows = new LinkedHashMap<>(expected());
        rows.put("hostname", "");
        rows.put("rlimit", "");
        rows.put("cgroup", "");
        rows.forEach((field, value) -> {
            t.append("| ").append(field);
            for (String executor : EXECUTORS) {
                String cell = DELIBERATE.stream().filter(d -> d.covers(field, executor)).map(d -> d.shown().get(executor)).findFirst()
                        .orElse(value.isEmpty() ? "(none)" : "`" + value + "`");
                t.append(" | ").append(cell);
            }
            t.append(" |\n");
        });
        t.append("\n| differs | on | why |\n| --- | --- | --- |\n");
        DELIBERATE.forEach(d -> t.append("| ").append(d.field()).append(" | ")
                .append(String.join(", ", EXECUTORS.stream().filter(d.shown()::containsKey).toList())).append(" | ")
                .append(d.reason()).append(" |\n"));
        return t.toString();
    }

    /** {@code key=value} lines in their order, values stripped. */
    static Map<String, String> lines(String text) {
        return text.lines().filter(line -> line.contains("=")).collect(Collectors.toMap(
                line -> line.substring(0, line.indexOf('=')), line -> line.substring(line.indexOf('=') + 1).strip(),
                (a, b) -> b, LinkedHashMap::new));
    }

    /**
     * {@code KIND:LINK} as the probe prints it: a FIFO (named or not) is a pipe, {@code /dev/null}
     * itself, a regular file its path.
     */
    static String streamKind(String value) {
        int colon = value.indexOf(':');
        String kind = colon < 0 ? value : value.substring(0, colon);
        String link = colon < 0 ? "" : value.substring(colon + 1);
        if (kind.equals("fifo")) {
            return "pipe";
        }
        if (link.equals("/dev/null")) {
            return link;
        }
        if (kind.equals("socket")) {
            return kind;
        }
        return kind.startsWith("regular") ? "file " + link : kind + " " + link;
    }

    private static String capabilityMask(Hardening hardening) {
        long mask = 0;
        for (String capability : hardening.capabilities()) {
            mask |= 1L << IsolationContract.CAPABILITY_BITS.get(capability);
        }
        return String.format("%016x", mask);
    }
}
