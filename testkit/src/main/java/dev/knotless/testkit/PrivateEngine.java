package dev.knotless.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Docker Engine of a test's own: a second {@code dockerd} from the machine's package, with its
 * own socket, data root, exec root, PID file, containerd (the one dockerd starts under its exec
 * root) and bridge, so that a test can restart it (SIGTERM and start again, as
 * {@code systemctl restart docker} does; live-restore is off, so its containers stop) without
 * touching the shared engine that runs everyone's containers and the test cluster's pods.
 *
 * <p>Usable from a {@code main} (the soak): {@code try (PrivateEngine e = PrivateEngine.start(dir,
 * image)) { … e.socket() … e.restart(); }}; nothing here depends on JUnit. {@link #main} starts one
 * and keeps it until the process is stopped. {@link #close} removes every container, stops the
 * engine, unmounts what it left and deletes its bridge and directory. Needs root.
 */
public final class PrivateEngine implements AutoCloseable {

    private static final Duration READY_WITHIN = Duration.ofSeconds(60);
    private static final Duration STOP_WITHIN = Duration.ofSeconds(60);

    private final Path dir;
    private final String bridge;
    private final String bridgeAddress;
    private Process dockerd;

    private PrivateEngine(Path dir, String bridge, String bridgeAddress) {
        this.dir = dir;
        this.bridge = bridge;
        this.bridgeAddress = bridgeAddress;
    }

    /** True when this machine can run one: root, and {@code dockerd} installed. */
    public static boolean possible() {
        return Commands.runs("id", "-u") && "0".equals(uidOrEmpty()) && Commands.runs("dockerd", "--version");
    }

    /**
     * Starts an engine under {@code dir} (made; must not be in use) and loads {@code images} into it
     * from the shared engine ({@code docker save | docker load}: no registry needed).
     */
    public static PrivateEngine start(Path dir, String... images) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        String tag = HexFormat.of().formatHex(randomBytes(4));
        PrivateEngine engine = new PrivateEngine(dir.toAbsolutePath(), "kpe" + tag, freeBridgeAddress());
        try {
            engine.makeBridge();
            Files.writeString(engine.dir.resolve("daemon.json"), "{}\n");
            engine.startDockerd();
            for (String image : images) {
                engine.load(image);
            }
            return engine;
        } catch (IOException | InterruptedException | RuntimeException e) {
            engine.close();
            throw e;
        }
    }

    /** The engine's socket, for {@code --docker-socket} or {@code new DockerExecutor(socket)}. */
    public Path socket() {
        return dir.resolve("docker.sock");
    }

    /** {@code unix://…}, for {@code DOCKER_HOST}. */
    public String host() {
        return "unix://" + socket();
    }

    /** The engine's log (both starts). */
    public Path log() {
        return dir.resolve("dockerd.log");
    }

    /** SIGTERM, wait until it has exited (its containers stopped), then start it again and wait until it answers. */
    public synchronized void restart() throws IOException, InterruptedException {
        stop();
        startDockerd();
    }

    /** SIGTERM and wait until it has exited; {@link #restart} or {@link #close} afterwards. */
    public synchronized void stop() throws InterruptedException {
        if (dockerd == null) {
            return;
        }
        dockerd.destroy();
        if (!dockerd.waitFor(STOP_WITHIN.toMillis(), TimeUnit.MILLISECONDS)) {
            dockerd.destroyForcibly();
            dockerd.waitFor(30, TimeUnit.SECONDS);
        }
        dockerd = null;
    }

    /** The {@code docker} CLI against this engine; its output, which must exit 0. */
    public String docker(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of("docker", "-H", host()));
        argv.addAll(Arrays.asList(args));
        return Commands.output(argv.toArray(String[]::new));
    }

    /** Ids of the containers (running or not) labelled {@code label} ({@code key=value}). */
    public List<String> containers(String label) throws IOException, InterruptedException {
        String out = docker("ps", "-a", "-q", "--no-trunc", "--filter", "label=" + label).strip();
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }

    /** Ids of the running containers labelled {@code label}. */
    public List<String> running(String label) throws IOException, InterruptedException {
        String out = docker("ps", "-q", "--no-trunc", "--filter", "label=" + label).strip();
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }

    @Override
    public synchronized void close() throws InterruptedException {
        try {
            if (dockerd != null && dockerd.isAlive()) {
                String all = docker("ps", "-a", "-q").strip();
                if (!all.isEmpty()) {
                    List<String> rm = new ArrayList<>(List.of("rm", "-f", "-v"));
                    rm.addAll(List.of(all.split("\\s+")));
                    docker(rm.toArray(String[]::new));
                }
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("private engine: containers not removed before the stop: " + e.getMessage());
        } finally {
            stop();
            unmountUnder(dir);
            Commands.runs("ip", "link", "del", bridge);
            deleteTree(dir);
        }
    }

    private void startDockerd() throws IOException, InterruptedException {
        Files.deleteIfExists(socket());
        dockerd = new ProcessBuilder("dockerd", "--host", host(), "--data-root", dir.resolve("data").toString(),
                "--exec-root", dir.resolve("exec").toString(), "--pidfile", dir.resolve("docker.pid").toString(),
                "--config-file", dir.resolve("daemon.json").toString(), "--bridge", bridge, "--iptables=false",
                "--ip-masq=false", "--ip-forward=false", "--userland-proxy=false")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        long until = System.nanoTime() + READY_WITHIN.toNanos();
        while (!Commands.runs("docker", "-H", host(), "version")) {
            if (!dockerd.isAlive() || System.nanoTime() > until) {
                throw new IllegalStateException("private Docker Engine did not start ("
                        + (dockerd.isAlive() ? "no answer in " + READY_WITHIN.toSeconds() + " s" : "exit " + dockerd.exitValue())
                        + "); its log: " + tail(log()));
            }
            Thread.sleep(100);
        }
    }

    private void load(String image) throws IOException, InterruptedException {
        Commands.output("bash", "-c", "set -o pipefail; docker save \"$1\" | docker -H \"$2\" load", "load", image, host());
    }

    private void makeBridge() throws IOException, InterruptedException {
        Commands.output("ip", "link", "add", "name", bridge, "type", "bridge");
        Commands.output("ip", "addr", "add", bridgeAddress, "dev", bridge);
        Commands.output("ip", "link", "set", bridge, "up");
    }

    /** A 10.199.N.1/24 no interface of this host has yet. */
    private static String freeBridgeAddress() throws IOException, InterruptedException {
        String used = Commands.output("ip", "-o", "-4", "addr");
        for (int tries = 0; tries < 256; tries++) {
            int n = ThreadLocalRandom.current().nextInt(256);
            if (!used.contains(" 10.199." + n + ".")) {
                return "10.199." + n + ".1/24";
            }
        }
        throw new IllegalStateException("no free 10.199.N.0/24 for a private engine's bridge");
    }

    private static void unmountUnder(Path dir) {
        try {
            List<String> mounts = new ArrayList<>();
            for (String line : Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String[] fields = line.split(" ");
                if (fields.length > 1 && fields[1].startsWith(dir.toString() + "/")) {
                    mounts.add(fields[1]);
                }
            }
            mounts.sort(Comparator.reverseOrder());
            for (String m : mounts) {
                Commands.runs("umount", "-l", m);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            System.err.println("private engine: " + dir + " not removed: " + e.getMessage());
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }

    private static String uidOrEmpty() {
        try {
            return Commands.output("id", "-u").strip();
        } catch (IOException | RuntimeException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        return b;
    }

    /**
     * {@code PrivateEngine DIR [IMAGE…]}: starts an engine under DIR with the images loaded, prints
     * {@code DOCKER_HOST=unix://…}, and keeps it until the process gets SIGTERM or SIGINT, then
     * removes it. {@code PrivateEngine check}: starts one in a temporary directory, restarts it
     * once and removes it, printing how long each took; exit status 1 when this machine cannot.
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: PrivateEngine DIR [IMAGE...] | PrivateEngine check");
            System.exit(2);
        }
        if (args[0].equals("check")) {
            check();
            return;
        }
        PrivateEngine engine = start(Path.of(args[0]), Arrays.copyOfRange(args, 1, args.length));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                engine.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        System.out.println("DOCKER_HOST=" + engine.host());
        Thread.currentThread().join();
    }

    private static void check() throws Exception {
        if (!possible()) {
            System.err.println("private Docker Engine: needs root and dockerd (Debian's docker.io)");
            System.exit(1);
        }
        Path dir = Files.createTempDirectory("knotless-engine-check-");
        long t0 = System.nanoTime();
        try (PrivateEngine engine = start(dir)) {
            long t1 = System.nanoTime();
            engine.restart();
            System.out.printf("private Docker Engine: started in %d ms, restarted in %d ms (%s)%n", (t1 - t0) / 1_000_000,
                    (System.nanoTime() - t1) / 1_000_000, engine.docker("version", "--format", "{{.Server.Version}}").strip());
        }
    }
}
