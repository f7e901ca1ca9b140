package dev.knotless.node.runc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code runc} binary, confined to its own {@code --root} under the node's state directory, so it
 * sees only this node's containers (never the host's {@code /run/runc}). Every command is an argv
 * array; every failure is a {@link RuncException} of one line with runc's own error. Each operation
 * is idempotent by itself: {@link #create} accepts an existing container with the same config digest,
 * {@link #start} a running one, {@link #kill} and {@link #delete} a missing or stopped one.
 */
public final class Runc {

    private static final Pattern LOGRUS_MSG = Pattern.compile("msg=\"((?:[^\"\\\\]|\\\\.)*)\"");
    private final ObjectMapper json = new ObjectMapper();
    private final String binary;
    private final Path root;
    private final Path logs;
    private final RuncCommand command;

    /**
     * @param binary   the runc executable ({@code runc} is looked up on PATH)
     * @param stateDir the node's state directory; runc keeps its state in {@code stateDir/runc} and
     *                 PID 1's output goes to {@code stateDir/runc-logs/ID.log}
     * @param timeout  how long a control command (everything but {@link #exec}) may take
     */
    public Runc(String binary, Path stateDir, Duration timeout) throws IOException {
        this.binary = binary;
        this.root = Files.createDirectories(stateDir.toAbsolutePath().resolve("runc"));
        this.logs = Files.createDirectories(stateDir.toAbsolutePath().resolve("runc-logs"));
        this.command = new RuncCommand(binary, root, timeout);
    }

    /**
     * Resets every signal to its default, then runs the rest of its arguments: {@code perl -e
     * RESET NR COMMAND...}, NR being {@code rt_sigaction}'s number on this machine. An ignored
     * signal stays ignored across exec, and a step descends from the agent through runc (Go, which
     * leaves the dispositions it does not handle as it found them): the JDK's launch starts every
     * child with 32 and 33 ignored, and a shell that starts the agent in the background ignores
     * INT and QUIT in it. No glibc program can reset 32 and 33 (glibc refuses {@code sigaction} on
     * them), so this is a raw system call; Perl is on every Debian host. The JDK's FORK launch
     * would avoid 32 and 33 too, but costs a copy of the agent's page tables per launch
     * (measured: 33 ms at a 200 MiB heap, 91 ms at 1 GiB, against 2.3 ms).
     */
    static final String RESET_SIGNALS = "my $n = shift; my $d = pack('Q4', 0, 0, 0, 0); syscall($n, $_, $d, 0, 8) for 1 .. 64;"
            + " exec { $ARGV[0] } @ARGV or die \"cannot run $ARGV[0]: $!\\n\";";

    /** Whether steps start with every signal at its default ({@link #RESET_SIGNALS} works here). */
    public boolean resetsSignals() {
        return command.resetsSignals();
    }

    /** The {@link ExecShim} for this runc, or why steps cannot have one here. */
    public ExecShim shim() throws RuncException {
        if (!resetsSignals()) {
            throw new RuncException("this node cannot start step shims: they need Perl and a known system call table"
                    + " (x86-64 or arm64)");
        }
        return new ExecShim(this, HostSyscalls.ofThisMachine().orElseThrow());
    }

    public Path root() {
        return root;
    }

    /** Where PID 1's stdout and stderr go. */
    public Path initLog(String id) {
        return logs.resolve(id + ".log");
    }

    /**
     * Creates the container from {@code bundle} (its {@code config.json} from {@link OciConfig}). An
     * existing container is accepted only if its config digest annotation matches the bundle's.
     */
    public ContainerState create(String id, Path bundle) throws RuncException, IOException {
        Path config = bundle.resolve("config.json");
        if (!Files.isRegularFile(config)) {
            throw new RuncException("create " + id + ": no config.json in " + bundle);
        }
        String wanted = new OciConfig().digestOf(Files.readAllBytes(config));
        if (wanted.isEmpty()) {
            throw new RuncException("create " + id + ": " + config + " has no " + OciConfig.DIGEST_ANNOTATION + " annotation");
        }
        Optional<ContainerState> existing = state(id);
        if (existing.isPresent()) {
            return acceptExisting(existing.get(), wanted);
        }
        // runc create hands its stdio to PID 1, which outlives it: a file, not a pipe we would wait on.
        Path log = initLog(id);
        List<String> argv = command.argv("create", "--bundle", bundle.toAbsolutePath().toString(), id);
        Process p = command.launch(new ProcessBuilder(argv)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()))
                .redirectErrorStream(true));
        int code = command.await(p, "create " + id);
        if (code != 0) {
            Optional<ContainerState> raced = state(id);
            if (raced.isPresent()) {
                return acceptExisting(raced.get(), wanted);
            }
            throw new RuncException("create " + id + " failed: " + lastError(Files.readString(log)));
        }
        return state(id).orElseThrow(() -> new RuncException("create " + id + ": runc reported success but the container is not there"));
    }

    private static ContainerState acceptExisting(ContainerState state, String wanted) throws RuncException {
        String have = state.annotations().getOrDefault(OciConfig.DIGEST_ANNOTATION, "(none)");
        if (!have.equals(wanted)) {
            throw new RuncException("create " + state.id() + ": a container with this id exists with config " + have
                    + ", not " + wanted + "; refused");
        }
        return state;
    }

    /** Starts PID 1 of a created container; a running one is returned as it is. A stopped one is not restarted. */
    public ContainerState start(String id) throws RuncException, IOException {
        ContainerState state = state(id).orElseThrow(() -> new RuncException("start " + id + ": no such container"));
        switch (state.status()) {
            case RUNNING -> {
                return state;
            }
            case CREATED -> {
                RuncCommand.Result r = command.run("start", id);
                if (r.code() != 0) {
                    ContainerState now = state(id).orElseThrow(() -> new RuncException("start " + id + " failed: " + lastError(r.stderr())));
                    if (now.status() != ContainerState.Status.RUNNING) {
                        throw new RuncException("start " + id + " failed: " + lastError(r.stderr()));
                    }
                }
                return state(id).orElseThrow(() -> new RuncException("start " + id + ": the container vanished"));
            }
            case STOPPED -> throw new RuncException("start " + id + ": the container has stopped (its PID 1 exited); it is not restarted");
            default -> throw new RuncException("start " + id + ": the container is " + state.status().name().toLowerCase());
        }
    }

    /** The container's state, or empty if there is no such container. */
    public Optional<ContainerState> state(String id) throws RuncException, IOException {
        if (!Files.isDirectory(root.resolve(id))) {
            return Optional.empty();
        }
        RuncCommand.Result r = command.run("state", id);
        if (r.code() != 0) {
            if (r.stderr().contains("does not exist")) {
                return Optional.empty();
            }
            throw new RuncException("state " + id + " failed: " + lastError(r.stderr()));
        }
        return Optional.of(parseState(json.readTree(r.stdout())));
    }

    /** Every container under this node's runc root. */
    public List<ContainerState> list() throws RuncException, IOException {
        RuncCommand.Result r = command.run("list", "--format", "json");
        if (r.code() != 0) {
            throw new RuncException("list failed: " + lastError(r.stderr()));
        }
        List<ContainerState> states = new ArrayList<>();
        JsonNode all = json.readTree(r.stdout());
        if (all != null && all.isArray()) {
            for (JsonNode node : all) {
                states.add(parseState(node));
            }
        }
        return states;
    }

    /**
     * The host PIDs of every process in the container (its cgroup), PID 1 included; empty when the
     * container is missing or stopped.
     */
    public List<Long> processes(String id) throws RuncException, IOException {
        Optional<ContainerState> state = state(id);
        if (state.isEmpty() || state.get().status() == ContainerState.Status.STOPPED) {
            return List.of();
        }
        RuncCommand.Result r = command.run("ps", "--format", "json", id);
        if (r.code() != 0) {
            throw new RuncException("ps " + id + " failed: " + lastError(r.stderr()));
        }
        List<Long> pids = new ArrayList<>();
        JsonNode all = json.readTree(r.stdout().isBlank() ? "[]" : r.stdout());
        for (JsonNode pid : all) {
            pids.add(pid.asLong());
        }
        return pids;
    }

    /** Sends {@code signal} (e.g. {@code TERM}, {@code KILL}) to PID 1; a missing or stopped container is fine. */
    public void kill(String id, String signal) throws RuncException, IOException {
        if (!signal.matches("(SIG)?[A-Z0-9]{2,8}")) {
            throw new IllegalArgumentException("not a signal name: " + signal);
        }
        Optional<ContainerState> state = state(id);
        if (state.isEmpty() || state.get().status() == ContainerState.Status.STOPPED) {
            return;
        }
        RuncCommand.Result r = command.run("kill", id, signal);
        if (r.code() != 0) {
            Optional<ContainerState> now = state(id);
            if (now.isEmpty() || now.get().status() == ContainerState.Status.STOPPED) {
                return;
            }
            throw new RuncException("kill " + id + " " + signal + " failed: " + lastError(r.stderr()));
        }
    }

    /** {@code runc delete --force}: kills what still runs and removes the container; a missing one is fine. */
    public void delete(String id) throws RuncException, IOException {
        if (state(id).isEmpty()) {
            Files.deleteIfExists(initLog(id));
            return;
        }
        RuncCommand.Result r = command.run("delete", "--force", id);
        if (r.code() != 0 && state(id).isPresent()) {
            throw new RuncException("delete " + id + " failed: " + lastError(r.stderr()));
        }
        Files.deleteIfExists(initLog(id));
    }

    /**
     * Runs a process inside the running container ({@code runc exec --process}) and returns its exit
     * code exactly as the process ended (128 + N when killed by signal N). {@code processJson} comes
     * from {@link OciConfig#execProcessJson}. Blocks until the process and its output are done.
     *
     * @throws RuncException if runc itself failed (no such container, not running, bad process), as
     *                       opposed to the process exiting non-zero
     */
    public int exec(String id, byte[] processJson, InputStream stdin, OutputStream stdout, OutputStream stderr)
            throws RuncException, IOException, InterruptedException {
        String name = id + "-exec-" + UUID.randomUUID();
        Path process = logs.resolve(name + ".json");
        Path runcLog = logs.resolve(name + ".runc.log");
        Files.write(process, processJson);
        try {
            Process p = command.launch(new ProcessBuilder(execArgv(id, process, runcLog)));
            // Platform threads: pipe reads and writes block in the kernel, and a virtual thread
            // blocked there pins its carrier and makes the scheduler compensate on every write
            // (a tenth of the node's CPU in a 100 MiB upload).
            Thread in = Thread.ofPlatform().daemon().name(name + "-stdin").start(() -> pump(stdin, p.getOutputStream(), true));
            Thread out = Thread.ofPlatform().daemon().name(name + "-stdout").start(() -> pump(p.getInputStream(), stdout, false));
            Thread err = Thread.ofPlatform().daemon().name(name + "-stderr").start(() -> pump(p.getErrorStream(), stderr, false));
            int code;
            try {
                code = p.waitFor();
                out.join();
                err.join();
            } catch (InterruptedException e) {
                p.destroyForcibly();
                throw e;
            } finally {
                in.interrupt();
            }
            checkExec(id, runcLog);
            return code;
        } finally {
            Files.deleteIfExists(process);
            Files.deleteIfExists(runcLog);
        }
    }

    /** {@code runc exec --process PROCESS ID}, logging runc's own errors as JSON to {@code runcLog}. */
    List<String> execArgv(String id, Path process, Path runcLog) {
        return List.of(binary, "--root", root.toString(), "--log", runcLog.toString(), "--log-format", "json",
                "exec", "--process", process.toString(), id);
    }

    /**
     * Throws if runc itself failed an exec whose log is {@code runcLog} (no such container, not
     * running, a bad process), as opposed to the process exiting non-zero.
     */
    public void checkExec(String id, Path runcLog) throws RuncException, IOException {
        String error = runcError(runcLog);
        if (error.isEmpty()) {
            return;
        }
        // Asked only now: a state call before every exec would cost a whole runc start per step.
        Optional<ContainerState> state = state(id);
        if (state.isEmpty()) {
            throw new RuncException("exec in " + id + ": no such container");
        }
        if (state.get().status() != ContainerState.Status.RUNNING) {
            throw new RuncException("exec in " + id + ": the container is " + state.get().status().name().toLowerCase()
                    + ", not running");
        }
        throw new RuncException("exec in " + id + " failed: " + error);
    }

    private String runcError(Path runcLog) throws IOException {
        if (!Files.exists(runcLog)) {
            return "";
        }
        String last = "";
        for (String line : Files.readAllLines(runcLog, StandardCharsets.UTF_8)) {
            try {
                JsonNode entry = json.readTree(line);
                String level = entry == null ? "" : entry.path("level").asText();
                if (level.equals("error") || level.equals("fatal")) {
                    last = entry.path("msg").asText();
                }
            } catch (IOException e) {
                // not a log entry of runc's; ignore
            }
        }
        return OneLine.of(last, 400);
    }

    private static void pump(InputStream from, OutputStream to, boolean closeTo) {
        try (from) {
            from.transferTo(to);
            to.flush();
        } catch (IOException e) {
            // the other side went away (process exited before reading all of stdin); nothing to do
        } finally {
            if (closeTo) {
                try {
                    to.close();
                } catch (IOException ignored) {
                    // already closed by the exiting process
                }
            }
        }
    }

    private ContainerState parseState(JsonNode node) {
        Map<String, String> annotations = new TreeMap<>();
        node.path("annotations").properties().forEach(e -> annotations.put(e.getKey(), e.getValue().asText()));
        return new ContainerState(node.path("id").asText(), ContainerState.Status.of(node.path("status").asText()),
                node.path("pid").asLong(), Path.of(node.path("bundle").asText("/")), annotations);
    }

    /** runc's last error line, without logrus decoration. */
    static String lastError(String stderr) {
        String last = "";
        for (String line : stderr.split("\\R")) {
            if (!line.isBlank()) {
                last = line.strip();
            }
        }
        Matcher m = LOGRUS_MSG.matcher(last);
        if (m.find()) {
            last = m.group(1).replace("\\\"", "\"");
        }
        return OneLine.of(last.isEmpty() ? "runc gave no reason" : last, 400);
    }
}
