package dev.knotless.checkout;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the {@code git} command line so that it never waits for a person: no terminal prompt,
 * stdin from {@code /dev/null} unless the caller feeds it, SSH in batch mode, no git variables
 * of the runner's own environment pointing it at another repository, only the file, git, http(s)
 * and ssh transports. Every run has a deadline after which git and its children are killed.
 *
 * <p>The one way the runner starts git: the checkout's mirrors and the forge's {@code ls-remote}
 * both come here, so the hardened environment cannot drift between two copies.
 *
 * <p>Stateless; safe from any thread.
 */
public final class Git {

    private static final Logger LOG = LoggerFactory.getLogger(Git.class);

    /** Standard output kept at most by {@link #run}; our commands print far less. */
    static final int MAX_STDOUT = 16 << 20;
    /** For commands that only read or write the local mirror. */
    static final Duration LOCAL_TIMEOUT = Duration.ofMinutes(5);
    private static final int MAX_STDERR = 16 << 10;
    private static final List<String> REPOSITORY_VARIABLES = List.of(
            "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
            "GIT_QUARANTINE_PATH", "GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_ICASE_PATHSPECS");

    private Git() {}

    public record Result(int exitCode, byte[] stdout, String stderr) {
        public boolean ok() {
            return exitCode == 0;
        }

        /** Standard output as UTF-8 without the final newline. */
        public String text() {
            String s = new String(stdout, StandardCharsets.UTF_8);
            return s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
        }
    }

    /** A process builder for {@code git ARGS} in {@code dir}, with the environment described above. */
    static ProcessBuilder command(Path dir, List<String> args) {
        List<String> argv = new ArrayList<>(args.size() + 1);
        argv.add("git");
        argv.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(argv).directory(dir.toFile());
        Map<String, String> env = builder.environment();
        REPOSITORY_VARIABLES.forEach(env::remove);
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("GCM_INTERACTIVE", "never");
        env.put("GIT_ALLOW_PROTOCOL", "file:git:http:https:ssh");
        env.put("LC_ALL", "C");
        env.remove("LANGUAGE");
        if (!env.containsKey("GIT_SSH_COMMAND") && !env.containsKey("GIT_SSH")) {
            env.put("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
        }
        builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        return builder;
    }

    /** Runs {@code git ARGS} in {@code dir} to its end or {@code timeout}, collecting its output. */
    public static Result run(Path dir, Duration timeout, List<String> args) throws IOException {
        return run(dir, timeout, args, Map.of());
    }

    /**
     * Runs {@code git ARGS} in {@code dir} against {@code remote}: its URL must be among
     * {@code args} as {@link GitRemote#url()}, and its credentials reach git only through the
     * environment.
     */
    public static Result run(Path dir, Duration timeout, List<String> args, GitRemote remote) throws IOException {
        return run(dir, timeout, args, remote.environment());
    }

    /** As {@link #run(Path, Duration, List)}, with {@code env} added to git's environment. */
    static Result run(Path dir, Duration timeout, List<String> args, Map<String, String> env) throws IOException {
        long started = System.nanoTime();
        ProcessBuilder builder = command(dir, args);
        builder.environment().putAll(env);
        Process process = builder.start();
        StderrDrain stderr = StderrDrain.start(process);
        AtomicBoolean timedOut = new AtomicBoolean();
        Thread watchdog = Thread.ofVirtual().start(() -> {
            try {
                if (!process.waitFor(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    timedOut.set(true);
                    kill(process);
                }
            } catch (InterruptedException e) {
                // The command finished first.
            }
        });
        try {
            byte[] stdout = readCapped(process.getInputStream(), MAX_STDOUT, args);
            int exit = process.waitFor();
            if (timedOut.get()) {
                throw new CheckoutException("git " + args.get(firstCommand(args)) + " did not finish within " + timeout.toSeconds() + " s");
            }
            Result result = new Result(exit, stdout, stderr.text());
            // Each git process is tens of milliseconds of a run's start-up: timed for bench/daemon-latency's breakdown.
            LOG.debug("git {} exit={} ms={}", args.get(firstCommand(args)), exit, (System.nanoTime() - started) / 1_000_000);
            return result;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while git ran");
        } finally {
            watchdog.interrupt();
            if (process.isAlive()) {
                kill(process);
            }
        }
    }

    /**
     * Ends a local {@code git cat-file}, which starts no process of its own: so, unlike {@link
     * #kill}, without listing its descendants, which reads every process's {@code /proc} entry
     * (a daemon resuming fifty runs on a loaded machine paid that for each commit it read).
     */
    static void endLocal(Process process) {
        process.destroyForcibly();
    }

    /** Kills git and what it started (remote helpers, ssh). */
    static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** The first argument that is not a {@code -c name=value} option: the subcommand. */
    static int firstCommand(List<String> args) {
        int i = 0;
        while (i < args.size() - 1 && args.get(i).startsWith("-")) {
            i += args.get(i).equals("-c") || args.get(i).equals("-C") ? 2 : 1;
        }
        return Math.min(i, args.size() - 1);
    }

    private static byte[] readCapped(InputStream in, int max, List<String> args) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) > 0) {
            if (out.size() + n > max) {
                throw new CheckoutException("git " + args.get(firstCommand(args)) + " printed more than "
                        + (max >> 20) + " MiB");
            }
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    /** Reads a process's stderr on its own thread so a chatty git cannot block on a full pipe. */
    static final class StderrDrain {
        private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
        private final Thread thread;

        private StderrDrain(Process process) {
            this.thread = Thread.ofVirtual().start(() -> {
                byte[] buffer = new byte[4096];
                try (InputStream in = process.getErrorStream()) {
                    int n;
                    while ((n = in.read(buffer)) > 0) {
                        synchronized (kept) {
                            int room = MAX_STDERR - kept.size();
                            kept.write(buffer, 0, Math.max(0, Math.min(room, n)));
                        }
                    }
                } catch (IOException e) {
                    // The process is gone; what was read is what there is.
                }
            });
        }

        static StderrDrain start(Process process) {
            return new StderrDrain(process);
        }

        /** Everything read so far, once the stream has ended (waits up to a second for it). */
        String text() throws InterruptedException {
            thread.join(Duration.ofSeconds(1));
            synchronized (kept) {
                return kept.toString(StandardCharsets.UTF_8).strip();
            }
        }
    }

    /** Git's complaint on one line: lines joined by {@code "; "}, "fatal: " prefixes dropped. */
    public static String oneLine(String stderr) {
        List<String> lines = new ArrayList<>();
        for (String line : stderr.split("\\R")) {
            String l = line.strip();
            if (l.startsWith("fatal: ")) {
                l = l.substring("fatal: ".length());
            } else if (l.startsWith("error: ")) {
                l = l.substring("error: ".length());
            }
            if (!l.isEmpty()) {
                lines.add(l);
            }
        }
        String joined = String.join("; ", lines);
        return joined.isEmpty() ? "no message" : joined.length() > 2000 ? joined.substring(0, 2000) + "..." : joined;
    }
}
