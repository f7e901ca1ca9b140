package dev.knotless.runner.forge;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code git ls-remote --refs}: the refs a repository has now, without fetching. Git never waits for
 * a person (no prompt, SSH in batch mode, stdin from {@code /dev/null}), reads only the file, git,
 * http(s) and ssh transports, and is killed at the deadline. Stateless; safe from any thread.
 */
final class LsRemote {

    private static final Logger LOG = LoggerFactory.getLogger(LsRemote.class);
    private static final int MAX_OUTPUT = 16 << 20;
    private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");
    private static final Pattern CREDENTIAL = Pattern.compile("(://)[^/@]*@");
    private static final List<String> REPOSITORY_VARIABLES = List.of(
            "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_QUARANTINE_PATH");

    private LsRemote() {}

    /**
     * Every ref of {@code repo} and the sha it names (tags unpeeled, no {@code HEAD}), sorted.
     *
     * @throws ForgeException "could not list the refs of NAME: <git's complaint>"
     */
    static Map<String, String> refs(Repository repo, Path workDir, Duration timeout) throws IOException {
        long started = System.nanoTime();
        ProcessBuilder builder = new ProcessBuilder("git", "ls-remote", "--refs", repo.cloneUrl())
                .directory(workDir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        Map<String, String> env = builder.environment();
        REPOSITORY_VARIABLES.forEach(env::remove);
        env.put("GIT_TERMINAL_PROMPT", "0");
        env.put("GCM_INTERACTIVE", "never");
        env.put("GIT_ALLOW_PROTOCOL", "file:git:http:https:ssh");
        env.put("LC_ALL", "C");
        if (!env.containsKey("GIT_SSH_COMMAND") && !env.containsKey("GIT_SSH")) {
            env.put("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
        }
        Process process = builder.start();
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        Thread drain = Thread.ofVirtual().start(() -> {
            try (InputStream in = process.getErrorStream()) {
                byte[] all = in.readNBytes(16 << 10);
                synchronized (stderr) {
                    stderr.write(all, 0, all.length);
                }
                in.transferTo(java.io.OutputStream.nullOutputStream());
            } catch (IOException e) {
                // The process is gone; what was read is what there is.
            }
        });
        Thread watchdog = Thread.ofVirtual().start(() -> {
            try {
                if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    kill(process);
                }
            } catch (InterruptedException e) {
                // Finished first.
            }
        });
        try {
            byte[] out;
            try (InputStream in = process.getInputStream()) {
                out = in.readNBytes(MAX_OUTPUT + 1);
            }
            if (out.length > MAX_OUTPUT) {
                throw new ForgeException("could not list the refs of " + repo.name() + ": git printed more than 16 MiB");
            }
            int exit = process.waitFor();
            drain.join(Duration.ofSeconds(1));
            if (exit != 0) {
                String why;
                synchronized (stderr) {
                    why = stderr.toString(StandardCharsets.UTF_8);
                }
                if (!watchdog.isAlive() && why.isBlank()) {
                    why = "no answer within " + timeout.toSeconds() + "s";
                }
                throw new ForgeException("could not list the refs of " + repo.name() + ": " + scrub(oneLine(why)));
            }
            LOG.debug("git ls-remote repo={} ms={}", repo.name(), (System.nanoTime() - started) / 1_000_000);
            return parse(new String(out, StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while listing the refs of " + repo.name());
        } finally {
            watchdog.interrupt();
            if (process.isAlive()) {
                kill(process);
            }
        }
    }

    static Map<String, String> parse(String listing) {
        Map<String, String> refs = new TreeMap<>();
        for (String line : listing.split("\n")) {
            int tab = line.indexOf('\t');
            if (tab > 0 && SHA.matcher(line.substring(0, tab)).matches()) {
                refs.put(line.substring(tab + 1), line.substring(0, tab));
            }
        }
        return refs;
    }

    static String scrub(String text) {
        return CREDENTIAL.matcher(text).replaceAll("$1");
    }

    private static String oneLine(String stderr) {
        String joined = String.join("; ", stderr.strip().lines()
                .map(l -> l.strip().replaceFirst("^(fatal|error): ", ""))
                .filter(l -> !l.isEmpty())
                .toList());
        return joined.isEmpty() ? "git ls-remote failed" : joined.length() > 500 ? joined.substring(0, 500) + "..." : joined;
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
