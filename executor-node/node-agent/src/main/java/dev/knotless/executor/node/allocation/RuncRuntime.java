package dev.knotless.executor.node.allocation;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.executor.ShellPayload;
import dev.knotless.executor.node.agent.Attachment;
import dev.knotless.executor.node.agent.Runtime;
import dev.knotless.executor.node.image.ImageException;
import dev.knotless.executor.node.image.ImagePuller;
import dev.knotless.executor.node.image.Trees;
import dev.knotless.executor.node.protocol.Action;
import dev.knotless.executor.node.protocol.Result;
import dev.knotless.executor.node.runc.BundleSpec;
import dev.knotless.executor.node.runc.ContainerState;
import dev.knotless.executor.node.runc.ImageUser;
import dev.knotless.executor.node.runc.NodeOptions;
import dev.knotless.executor.node.runc.OciConfig;
import dev.knotless.executor.node.runc.RunAs;
import dev.knotless.executor.node.runc.Runc;
import dev.knotless.executor.node.runc.RuncException;
import dev.knotless.tar.TarExtractor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The node's {@link Runtime}: allocations are runc containers made from pulled images, each with
 * its own copy of the image's root filesystem and its own host directories for {@code /work},
 * {@code /steps} and {@code /outputs}; networks come from CNI. Every operation converges when
 * repeated (the agent re-runs one whose ledger entry a crash lost).
 *
 * <p>Layout under the state directory: {@code allocations/<id>/} holds {@code allocation.json},
 * {@code bundle/config.json}, {@code rootfs/}, {@code work/}, {@code steps/}, {@code outputs/} and
 * {@code step-output/<n>/}.
 *
 * <p>What runs inside a container is fixed here, never taken from an action: steps run {@link
 * ShellPayload#receiver()} with the action's payload on stdin; uploads and downloads run {@code
 * tar} with the path as an argument.
 */
public final class RuncRuntime implements Runtime {

    private static final System.Logger LOG = System.getLogger(RuncRuntime.class.getName());
    /** A download of a directory that does not exist ends the tar shell with this code. */
    private static final int NO_SUCH_DIRECTORY = 100;
    private static final String UPLOAD_SCRIPT = "mkdir -p -- \"$1\" && cd -- \"$1\" && exec tar -x -o -f -";
    /**
     * Top-level names are given in glob order (sorted), so an archive lists them the same way
     * every time, whatever order the directory happens to hold them in; an empty directory is an
     * empty archive (tar refuses to write one).
     */
    private static final String DOWNLOAD_SCRIPT = String.join("\n",
            "cd -- \"$1\" 2>/dev/null || exit " + NO_SUCH_DIRECTORY,
            "set --",
            "for f in * .[!.]* ..?*; do if [ -e \"$f\" ] || [ -L \"$f\" ]; then set -- \"$@\" \"./$f\"; fi; done",
            "if [ $# -eq 0 ]; then exec head -c 10240 /dev/zero; fi",
            "exec tar -c -f - \"$@\"");
    private static final Duration NODE_STEP_GRACE = Duration.ofSeconds(5);

    private final ImagePuller puller;
    private final Runc runc;
    private final OciConfig oci;
    private final NodeOptions options;
    private final Optional<AllocationNetwork> network;
    private final Path allocations;
    private final ObjectMapper json = new ObjectMapper();
    private final Map<String, StepRun> steps = new ConcurrentHashMap<>();
    private final Map<String, BundleSpec> bundles = new ConcurrentHashMap<>();

    public RuncRuntime(ImagePuller puller, Runc runc, OciConfig oci, NodeOptions options,
            Optional<AllocationNetwork> network, Path stateDir) throws IOException {
        this.puller = puller;
        this.runc = runc;
        this.oci = oci;
        this.options = options;
        this.network = network;
        this.allocations = Files.createDirectories(stateDir.resolve("allocations"));
    }

    @Override
    public Result.Done pullImage(Action.PullImage action) throws RuntimeFailure {
        pull(action.image());
        return new Result.Done();
    }

    @Override
    public Result.Done createAllocation(Action.CreateAllocation a) throws RuntimeFailure {
        String id = a.allocation();
        AllocationRecord wanted = new AllocationRecord(id, a.image(), a.cpuMillis(), a.memoryBytes(), a.labels());
        Path dir = allocations.resolve(id);
        Optional<AllocationRecord> existing = record(id);
        if (existing.isPresent() && !existing.get().equals(wanted)) {
            throw new RuntimeFailure("allocation " + id + " exists with another image, limits or labels; refused");
        }
        ImagePuller.PulledImage image = pull(a.image());
        try {
            if (existing.isEmpty()) {
                Files.createDirectories(dir);
                writeAtomically(dir.resolve("allocation.json"), json.writeValueAsBytes(wanted));
            }
            copyRootfs(image.rootfs(), dir.resolve("rootfs"));
            BundleSpec spec = bundle(wanted, image);
            for (Path d : List.of(spec.dirs().work(), spec.dirs().steps(), spec.dirs().outputs())) {
                Files.createDirectories(d);
                giveTo(d, options.runAs().orElse(spec.user()));
            }
            Path bundle = Files.createDirectories(dir.resolve("bundle"));
            writeAtomically(bundle.resolve("config.json"), oci.configJson(spec));
            runc.create(id, bundle);
            return new Result.Done();
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException | IllegalArgumentException e) {
            throw new RuntimeFailure("create allocation " + id + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Result.AllocationRunning startAllocation(Action.StartAllocation a) throws RuntimeFailure {
        try {
            requireRecord(a.allocation());
            runc.start(a.allocation());
            return new Result.AllocationRunning(a.allocation());
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException e) {
            throw new RuntimeFailure("start allocation " + a.allocation() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Result.Done attachNetwork(Action.AttachNetwork a) throws RuntimeFailure {
        AllocationNetwork net = network.filter(n -> n.name().equals(a.network())).orElseThrow(() -> new RuntimeFailure(
                "this node has no network named " + a.network()
                        + network.map(n -> " (it has " + n.name() + ")").orElse(" (it has none)")));
        try {
            requireRecord(a.allocation());
            ContainerState state = runc.state(a.allocation()).filter(s -> s.pid() > 0 && s.status() != ContainerState.Status.STOPPED)
                    .orElseThrow(() -> new RuntimeFailure("allocation " + a.allocation() + " has no live container to attach"));
            String address = net.attach(a.allocation(), netns(state));
            LOG.log(System.Logger.Level.INFO, "allocation=" + a.allocation() + " network=" + net.name() + " address=" + address);
            return new Result.Done();
        } catch (RuntimeFailure e) {
            throw e;
        } catch (Exception e) {
            throw new RuntimeFailure("attach " + a.allocation() + " to " + a.network() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Result.Received upload(Action.Upload a, InputStream tar) throws RuntimeFailure {
        String id = a.allocation();
        DigestingInput in = new DigestingInput(tar, a.maxBytes());
        try {
            requireRecord(id);
            Optional<Path> steps = stepsDir(id, a.path());
            if (steps.isPresent()) {
                // /steps is read-only inside the run, so a step cannot change the steps after it; it is filled from here.
                TarExtractor.into(Files.createDirectories(steps.get()), a.maxBytes()).readFrom(in);
            } else {
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                int code = runc.exec(id, exec(id, List.of("/bin/sh", "-c", UPLOAD_SCRIPT, "sh", a.path())), in,
                        OutputStream.nullOutputStream(), err);
                if (in.over) {
                    throw new RuntimeFailure("upload into " + a.path() + " is over its limit of " + a.maxBytes() + " bytes");
                }
                if (code != 0) {
                    throw new RuntimeFailure("upload into " + a.path() + " failed: " + lastLine(err, "tar exited " + code));
                }
            }
            in.transferTo(OutputStream.nullOutputStream());
            return new Result.Received(id, a.path(), in.count, in.hex());
        } catch (RuntimeFailure e) {
            throw e;
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException e) {
            throw new RuntimeFailure(in.over ? "upload into " + a.path() + " is over its limit of " + a.maxBytes() + " bytes"
                    : "upload into " + a.path() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeFailure("upload interrupted");
        }
    }

    @Override
    public Result.Downloaded download(Action.Download a, OutputStream tar) throws RuntimeFailure {
        String id = a.allocation();
        DigestingOutput out = new DigestingOutput(tar);
        try {
            requireRecord(id);
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = runc.exec(id, exec(id, List.of("/bin/sh", "-c", DOWNLOAD_SCRIPT, "sh", a.path())),
                    InputStream.nullInputStream(), out, err);
            if (code == NO_SUCH_DIRECTORY) {
                throw new RuntimeFailure("no such directory in the run: " + a.path());
            }
            if (code != 0) {
                throw new RuntimeFailure("download of " + a.path() + " failed: " + lastLine(err, "tar exited " + code));
            }
            out.flush();
            return new Result.Downloaded(id, a.path(), out.count, out.hex());
        } catch (RuntimeFailure e) {
            throw e;
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException e) {
            throw new RuntimeFailure("download of " + a.path() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeFailure("download interrupted");
        }
    }

    @Override
    public Result.StepExited runStep(Action.RunStep a, Attachment.StepOutput output) throws RuntimeFailure {
        String id = a.allocation();
        byte[] payload = a.payload();
        String digest = sha256(payload);
        StepRun run;
        try {
            requireRecord(id);
            run = stepRun(a, payload, digest);
        } catch (IOException e) {
            throw new RuntimeFailure("step " + a.step() + " of " + id + ": " + e.getMessage(), e);
        }
        if (!run.payloadDigest().equals(digest)) {
            throw new RuntimeFailure("step " + a.step() + " of " + id + " was started with another payload; refused");
        }
        StepRun.Followed followed;
        try {
            followed = run.follow(a.stdoutFrom(), a.stderrFrom(), output);
        } catch (IOException e) {
            throw new RuntimeFailure("stopped following step " + a.step() + " of " + id + " (it runs on): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeFailure("following step " + a.step() + " interrupted (it runs on)");
        }
        return switch (followed.end()) {
            case StepRun.End.Exited e -> new Result.StepExited(id, a.step(), e.exitCode(), e.durationMs(),
                    followed.stdoutBytes(), followed.stderrBytes());
            case StepRun.End.Broken b -> throw new RuntimeFailure("step " + a.step() + " of " + id + ": " + b.reason());
        };
    }

    @Override
    public Result.Done stopAllocation(Action.StopAllocation a) throws RuntimeFailure {
        try {
            if (a.stepsOnly()) {
                stopSteps(a.allocation(), Duration.ofMillis(a.graceMs()));
            } else {
                stopContainer(a.allocation(), Duration.ofMillis(a.graceMs()));
            }
            return new Result.Done();
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException e) {
            throw new RuntimeFailure("stop " + a.allocation() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeFailure("stop interrupted");
        }
    }

    @Override
    public Result.Done deleteAllocation(Action.DeleteAllocation a) throws RuntimeFailure {
        String id = a.allocation();
        try {
            Optional<ContainerState> state = runc.state(id);
            if (network.isPresent()) {
                network.get().detach(id, state.filter(s -> s.pid() > 0 && s.status() != ContainerState.Status.STOPPED)
                        .map(RuncRuntime::netns));
            }
            runc.delete(id);
            steps.keySet().removeIf(k -> k.startsWith(id + "/"));
            bundles.remove(id);
            Trees.delete(allocations.resolve(id));
            return new Result.Done();
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (Exception e) {
            throw new RuntimeFailure("delete allocation " + id + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Result.AllocationList listAllocations(Action.ListAllocations a) throws RuntimeFailure {
        try {
            Map<String, ContainerState> containers = new TreeMap<>();
            for (ContainerState s : runc.list()) {
                containers.put(s.id(), s);
            }
            List<Result.Allocation> list = new ArrayList<>();
            for (String id : recordedIds()) {
                Optional<AllocationRecord> r = record(id);
                if (r.isEmpty()) {
                    continue;
                }
                ContainerState c = containers.get(id);
                Result.State state = c == null ? Result.State.STOPPED : switch (c.status()) {
                    case CREATING, CREATED -> Result.State.CREATED;
                    case RUNNING, PAUSED -> Result.State.RUNNING;
                    case STOPPED -> Result.State.STOPPED;
                };
                list.add(new Result.Allocation(id, r.get().image(), state, r.get().labels()));
            }
            return new Result.AllocationList(list);
        } catch (RuncException e) {
            throw new RuntimeFailure(e.getMessage());
        } catch (IOException e) {
            throw new RuntimeFailure("list allocations: " + e.getMessage(), e);
        }
    }

    /**
     * What the node holds that no allocation record accounts for: containers under its runc root
     * and network addresses with no record (a crash between making them and recording, or a state
     * directory restored from a backup). Reported to the runner; only a signed {@code
     * delete_allocation} removes them.
     */
    public List<String> orphans() throws Exception {
        Set<String> recorded = new HashSet<>(recordedIds());
        Set<String> found = new TreeSet<>();
        for (ContainerState s : runc.list()) {
            if (!recorded.contains(s.id())) {
                found.add(s.id());
            }
        }
        if (network.isPresent()) {
            for (String holder : network.get().holders()) {
                if (!recorded.contains(holder)) {
                    found.add(holder);
                }
            }
        }
        found.removeIf(id -> !id.matches("[a-z0-9][a-z0-9-]{0,62}"));
        return List.copyOf(found);
    }

    // ---- steps ---------------------------------------------------------------------------------

    private StepRun stepRun(Action.RunStep a, byte[] payload, String digest) throws IOException, RuntimeFailure {
        String key = a.allocation() + "/" + a.step();
        synchronized (steps) {
            StepRun run = steps.get(key);
            Path dir = allocations.resolve(a.allocation()).resolve("step-output").resolve(Integer.toString(a.step()));
            if (run == null) {
                run = StepRun.load(dir).orElse(null);
            }
            if (run == null) {
                run = StepRun.create(dir, digest);
                launch(a, payload, run);
            }
            steps.put(key, run);
            return run;
        }
    }

    private void launch(Action.RunStep a, byte[] payload, StepRun run) throws RuntimeFailure {
        byte[] process = exec(a.allocation(), ShellPayload.receiver());
        Thread.ofVirtual().name("step-" + a.allocation() + "-" + a.step()).start(() -> {
            long started = System.nanoTime();
            Thread watchdog = Thread.ofVirtual().start(() -> stopAtDeadline(a, run));
            try (OutputStream out = run.stdoutSink(); OutputStream err = run.stderrSink()) {
                int code = runc.exec(a.allocation(), process, new ByteArrayInputStream(payload), out, err);
                run.finish(new StepRun.End.Exited(code, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)));
            } catch (RuncException | IOException e) {
                run.finish(new StepRun.End.Broken(String.valueOf(e.getMessage())));
            } catch (InterruptedException e) {
                run.finish(new StepRun.End.Broken("the node stopped the step"));
            } finally {
                watchdog.interrupt();
            }
        });
    }

    /** The runner stops steps at their deadline; this is the node's own backstop if it cannot. */
    private void stopAtDeadline(Action.RunStep a, StepRun run) {
        try {
            Thread.sleep(a.timeoutMs());
            if (!run.ended()) {
                LOG.log(System.Logger.Level.WARNING, "allocation=" + a.allocation() + " step=" + a.step()
                        + " passed its deadline of " + a.timeoutMs() + " ms; stopping it");
                stopSteps(a.allocation(), NODE_STEP_GRACE);
            }
        } catch (InterruptedException e) {
            // the step ended first
        } catch (Exception e) {
            LOG.log(System.Logger.Level.WARNING, "allocation=" + a.allocation() + " step=" + a.step() + " could not be stopped: " + e.getMessage());
        }
    }

    /** TERM to every process of the allocation but PID 1, then KILL to what is left after the grace. */
    private void stopSteps(String id, Duration grace) throws RuncException, IOException, InterruptedException {
        Optional<ContainerState> state = runc.state(id);
        if (state.isEmpty() || state.get().status() == ContainerState.Status.STOPPED) {
            return;
        }
        long init = state.get().pid();
        List<ProcessHandle> term = handles(runc.processes(id), init);
        term.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + grace.toNanos();
        while (term.stream().anyMatch(ProcessHandle::isAlive) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        // Listed again: a step may have forked between the list and the TERM.
        for (int round = 0; round < 3; round++) {
            List<ProcessHandle> left = handles(runc.processes(id), init);
            if (left.isEmpty()) {
                return;
            }
            left.forEach(ProcessHandle::destroyForcibly);
            Thread.sleep(20);
        }
    }

    private static List<ProcessHandle> handles(List<Long> pids, long init) {
        List<ProcessHandle> handles = new ArrayList<>();
        for (long pid : pids) {
            if (pid != init) {
                ProcessHandle.of(pid).ifPresent(handles::add);
            }
        }
        return handles;
    }

    private void stopContainer(String id, Duration grace) throws RuncException, IOException, InterruptedException {
        runc.kill(id, "TERM");
        long deadline = System.nanoTime() + grace.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<ContainerState> s = runc.state(id);
            if (s.isEmpty() || s.get().status() == ContainerState.Status.STOPPED) {
                return;
            }
            Thread.sleep(50);
        }
        runc.kill(id, "KILL");
    }

    // ---- bundles, records, files ---------------------------------------------------------------

    private byte[] exec(String id, List<String> args) throws RuntimeFailure {
        BundleSpec spec = bundles.get(id);
        if (spec == null) {
            AllocationRecord r = requireRecord(id);
            spec = bundle(r, pull(r.image()));
        }
        return oci.execProcessJson(spec, args, spec.env(), "/work");
    }

    private BundleSpec bundle(AllocationRecord r, ImagePuller.PulledImage image) {
        return bundles.computeIfAbsent(r.allocation(), id -> {
            Path dir = allocations.resolve(id);
            Path rootfs = dir.resolve("rootfs");
            RunAs user = ImageUser.resolve(image.config().user(), rootfs);
            Map<String, String> annotations = new TreeMap<>();
            r.labels().forEach((k, v) -> annotations.put("dev.knotless.label." + k, v));
            annotations.put("dev.knotless.image", r.image());
            return new BundleSpec(id, rootfs, BundleSpec.AllocationDirs.under(dir),
                    new BundleSpec.Resources(r.memoryBytes(), Math.max(10, r.cpuMillis())), user, image.config().env(),
                    Optional.empty(), annotations, options);
        });
    }

    private ImagePuller.PulledImage pull(String image) throws RuntimeFailure {
        try {
            return puller.pull(image);
        } catch (ImageException e) {
            throw new RuntimeFailure(e.getMessage());
        }
    }

    private Optional<AllocationRecord> record(String id) throws RuntimeFailure {
        Path file = allocations.resolve(id).resolve("allocation.json");
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(json.readValue(file.toFile(), AllocationRecord.class));
        } catch (IOException e) {
            throw new RuntimeFailure("allocation " + id + " has an unreadable record: " + e.getMessage(), e);
        }
    }

    private AllocationRecord requireRecord(String id) throws RuntimeFailure {
        return record(id).orElseThrow(() -> new RuntimeFailure("no allocation " + id + " on this node"));
    }

    private List<String> recordedIds() throws IOException {
        try (var entries = Files.list(allocations)) {
            return entries.filter(p -> Files.isRegularFile(p.resolve("allocation.json")))
                    .map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** {@code /steps} or a directory under it, as a host directory of the allocation. */
    private Optional<Path> stepsDir(String id, String path) {
        String steps = dev.knotless.executor.RunLayout.STEPS;
        if (!path.equals(steps) && !path.startsWith(steps + "/")) {
            return Optional.empty();
        }
        Path dir = allocations.resolve(id).resolve("steps");
        String rest = path.substring(steps.length());
        return Optional.of(rest.isEmpty() ? dir : dir.resolve(rest.substring(1)));
    }

    private static Path netns(ContainerState state) {
        return Path.of("/proc", Long.toString(state.pid()), "ns", "net");
    }

    /** A private copy of the image's root filesystem; {@code cp -a} keeps owners, modes, links and hard links. */
    private static void copyRootfs(Path image, Path target) throws IOException, RuntimeFailure {
        if (Files.isDirectory(target)) {
            return;
        }
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        Trees.delete(tmp);
        Process cp = new ProcessBuilder("cp", "-a", "--", image.toString(), tmp.toString())
                .redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        String said = new String(cp.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (cp.waitFor() != 0) {
                Trees.delete(tmp);
                throw new RuntimeFailure("copying the image's root filesystem failed: " + said.strip().replaceAll("\\R", " "));
            }
        } catch (InterruptedException e) {
            cp.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new RuntimeFailure("copying the image's root filesystem interrupted");
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void giveTo(Path dir, RunAs user) throws IOException {
        if (!"root".equals(System.getProperty("user.name"))) {
            return;
        }
        Files.setAttribute(dir, "unix:uid", (int) user.uid(), java.nio.file.LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(dir, "unix:gid", (int) user.gid(), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    private static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, bytes);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static String lastLine(ByteArrayOutputStream err, String otherwise) {
        String text = err.toString(StandardCharsets.UTF_8).strip();
        if (text.isEmpty()) {
            return otherwise;
        }
        String[] lines = text.split("\\R");
        String last = lines[lines.length - 1];
        return last.length() > 300 ? last.substring(0, 300) + "…" : last;
    }

    static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(digest().digest(bytes));
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Counts and hashes what is read, and stops reading past {@code max}. */
    private static final class DigestingInput extends InputStream {
        private final InputStream in;
        private final long max;
        private final MessageDigest sha = digest();
        long count;
        volatile boolean over;

        DigestingInput(InputStream in, long max) {
            this.in = in;
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                count += n;
                if (count > max) {
                    over = true;
                    throw new IOException("over the upload's limit of " + max + " bytes");
                }
                sha.update(b, off, n);
            }
            return n;
        }

        String hex() {
            return HexFormat.of().formatHex(sha.digest());
        }
    }

    /** Counts and hashes what is written. */
    private static final class DigestingOutput extends OutputStream {
        private final OutputStream out;
        private final MessageDigest sha = digest();
        long count;

        DigestingOutput(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            sha.update(b, off, len);
            count += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        String hex() {
            return HexFormat.of().formatHex(sha.digest());
        }
    }
}
