package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.executor.Executor;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunSpec;
import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.SweepReport;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import dev.knotless.tar.Bounded;
import dev.knotless.tar.DirectoryTar;
import dev.knotless.tar.TarExtractor;
import dev.knotless.tar.TarStreams;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scenarios every executor must pass, against the real thing it drives (never a fake engine
 * or cluster). An executor module's integration test extends this class and says how to reach
 * the executor, which image has {@code /bin/sh}, and what it still holds for a runner.
 *
 * <p>Each test runs under a fresh random runner id, so tests never touch each other's (or anyone
 * else's) runs, and after each test nothing labelled with that runner may remain: sessions the
 * test opened are closed, then {@link #leftovers} must be empty (a sweep cleans up either way, so
 * one failure does not litter the shared engine).
 *
 * <p>Steps run under the image's {@code /bin/sh}; the scripts use only POSIX sh and BusyBox
 * applets.
 */
public abstract class ExecutorContract {

    private static final long MiB = 1024 * 1024;
    /** A real 1x1 PNG. */
    private static final String PIXEL_PNG =
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

    private final List<Session> opened = new ArrayList<>();
    private String runnerId;

    @TempDir
    protected Path temp;

    /** The executor under test; may be shared by all tests. */
    protected abstract Executor executor();

    /** An image with {@code /bin/sh} and BusyBox-like applets ({@code sha256sum}, {@code base64}, {@code tr}). */
    protected abstract String image();

    /** What the executor still has (containers, Jobs, pods, allocations) labelled with {@code runnerId}. */
    protected abstract List<String> leftovers(String runnerId) throws Exception;

    /** The kill grace the scenarios use. */
    protected Duration killGrace() {
        return Duration.ofSeconds(2);
    }

    @BeforeEach
    final void freshRunner() {
        runnerId = "contract-" + randomHex(6);
    }

    @AfterEach
    final void nothingIsLeftBehind() throws Exception {
        for (Session s : opened) {
            s.close();
        }
        opened.clear();
        List<String> left = leftovers(runnerId);
        executor().sweep(runnerId, Set.of());
        assertThat(left).as("what the executor still has for runner %s after the test", runnerId).isEmpty();
    }

    // ---- scenarios -----------------------------------------------------------------------------

    @Test
    void checkoutRoundTripKeepsModesSymlinksEmptyDirectoriesUnicodeNamesAndContent() throws Exception {
        Path src = Files.createDirectories(temp.resolve("checkout"));
        file(src.resolve("bin/run.sh"), "#!/bin/sh\necho ran\n", "rwxr-xr-x");
        file(src.resolve("README.txt"), "read me\n", "rw-r--r--");
        file(src.resolve("private.txt"), "mine\n", "rw-------");
        file(src.resolve("dir/nested/deep/file.txt"), "deep\n", "rw-r--r--");
        file(src.resolve("ünïcødé 名前.txt"), "unicode ✓\n", "rw-r--r--");
        Files.createSymbolicLink(src.resolve("link"), Path.of("README.txt"));
        Files.createSymbolicLink(src.resolve("dirlink"), Path.of("dir/nested"));
        Files.createDirectories(src.resolve("empty"));
        String bigHash = bigFile(src.resolve("big.bin"), 100);

        Session s = open();
        s.upload("/work", DirectoryTar.of(src), StopSignal.none());
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("inspect", """
                set -e
                ls -la
                sha256sum big.bin
                test -x bin/run.sh && test ! -x README.txt
                [ "$(readlink link)" = README.txt ] && [ "$(cat link)" = "read me" ]
                test -d empty && test -z "$(ls -A empty)"
                ./bin/run.sh
                cat "ünïcødé 名前.txt"
                pwd
                """), out, StopSignal.none());
        assertThat(outcome).as("stdout: %s%nstderr: %s", out.stdout(), out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).contains(bigHash + "  big.bin", "ran\n", "unicode ✓\n", "/work\n");

        Path back = Files.createDirectories(temp.resolve("back"));
        s.download("/work", TarExtractor.into(back, 512 * MiB), StopSignal.none());
        assertThat(describeTree(back)).isEqualTo(describeTree(src));
    }

    @Test
    void outputsComeBackByteForByte() throws Exception {
        Session s = open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("outputs", "set -e\n"
                + "echo '" + PIXEL_PNG + "' | base64 -d > /outputs/pixel.png\n"
                + "mkdir -p /outputs/reports\n"
                + "printf 'total: 3\\npassed: 3\\n' > /outputs/reports/summary.txt\n"), out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));

        Path back = Files.createDirectories(temp.resolve("outputs"));
        s.download("/outputs", TarExtractor.into(back, 16 * MiB), StopSignal.none());
        assertThat(back.resolve("pixel.png")).hasBinaryContent(Base64.getDecoder().decode(PIXEL_PNG));
        assertThat(back.resolve("reports/summary.txt")).hasContent("total: 3\npassed: 3\n");
    }

    @Test
    void aStepExitingThreeReturnsExitedThreeWithStdoutAndStderrApart() throws Exception {
        Session s = open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("fails", "echo to-out; echo to-err >&2; exit 3"), out, StopSignal.none());
        assertThat(outcome).isEqualTo(new StepOutcome.Exited(3));
        assertThat(out.stdout()).isEqualTo("to-out\n");
        assertThat(out.stderr()).isEqualTo("to-err\n");
    }

    @Test
    void aStepPastItsTimeoutIsStoppedAndLeavesNoProcess() throws Exception {
        Session s = open();
        long started = System.nanoTime();
        StepOutcome outcome;
        try (StopSignal step = StopSignal.none().child(Duration.ofSeconds(2))) {
            outcome = s.run(sh("hangs", "sleep 600"), new RecordingOutput(), step);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(outcome).isEqualTo(new StepOutcome.TimedOut());
        assertThat(took).isLessThan(Duration.ofSeconds(2).plus(killGrace()).plusSeconds(5));
        assertThat(processes(s)).doesNotContain("sleep 600");
    }

    @Test
    void aStepIgnoringTermIsKilledAfterTheGrace() throws Exception {
        Session s = open();
        long started = System.nanoTime();
        StepOutcome outcome;
        try (StopSignal step = StopSignal.none().child(Duration.ofSeconds(2))) {
            outcome = s.run(sh("stubborn", "trap '' TERM; sleep 601; echo survived"), new RecordingOutput(), step);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(outcome).isEqualTo(new StepOutcome.TimedOut());
        assertThat(took).isLessThan(Duration.ofSeconds(2).plus(killGrace()).plusSeconds(5));
        assertThat(processes(s)).doesNotContain("sleep 601");
        RecordingOutput after = new RecordingOutput();
        assertThat(s.run(sh("still usable", "echo fine"), after, StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
        assertThat(after.stdout()).isEqualTo("fine\n");
    }

    @Test
    void cancellationMidStepReturnsCancelledAndClosingLeavesNothing() throws Exception {
        Session s = open();
        StopSignal run = new StopSignal();
        Thread canceller = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            run.stop(StopSignal.Reason.CANCELLED);
        });
        StepOutcome outcome;
        try (StopSignal step = run.child(Duration.ofMinutes(5))) {
            outcome = s.run(sh("cancelled", "sleep 602"), new RecordingOutput(), step);
        }
        canceller.join();
        assertThat(outcome).isEqualTo(new StepOutcome.Cancelled());
        s.close();
        assertThat(leftovers(runnerId)).isEmpty();
    }

    @Test
    void variablesReachTheStepByteExactlyAndAppearInNoProcessArgv() throws Exception {
        String marker = "knotless-marker-" + randomHex(8);
        Map<String, String> env = new LinkedHashMap<>();
        env.put("QUOTES", "it's \"double\" and 'single' \\ back\\\\slash; echo injected");
        env.put("NEWLINES", "line one\nline two\n\n\ttabbed\r\nlast\n");
        env.put("SUBSTITUTION", "$(touch /tmp/pwned-subst) ${HOME} $HOME $((1+1)) *");
        env.put("BACKTICKS", "`touch /tmp/pwned-backtick`");
        env.put("UNICODE", "héllo wörld — 名前 🚀 \u00a0end");
        env.put("LARGE", largeValue(127 * 1024)); // the largest that fits one Linux environment entry
        env.put("MARKER", marker);
        String names = String.join(" ", env.keySet());
        Session s = open();
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(new StepPayload("variables", List.of("/bin/sh", "-c", """
                set -e
                for n in %s; do
                  eval "printf '%%s' \\"\\$$n\\"" > "/outputs/$n"
                done
                test ! -e /tmp/pwned-subst && test ! -e /tmp/pwned-backtick
                sleep 30 >/dev/null 2>&1 &
                holder=$!
                # a process just forked may show an empty environ for a moment
                i=0
                while [ $i -lt 50 ]; do
                  case "$(tr '\\0' '\\n' < /proc/$holder/environ)" in *"$MARKER"*) echo "environment carries the marker"; break ;; esac
                  i=$((i + 1)); sleep 0.1
                done
                found=
                for f in /proc/[0-9]*/cmdline; do
                  c=$(tr '\\0' ' ' < "$f" 2>/dev/null) || continue
                  case "$c" in *"$MARKER"*) found="$found $f" ;; esac
                done
                kill $holder
                if [ -n "$found" ]; then echo "marker in argv of:$found"; exit 9; fi
                echo "argv clean"
                """.formatted(names)), env), out, StopSignal.none());
        assertThat(outcome).as("stdout: %s%nstderr: %s", out.stdout(), out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).contains("environment carries the marker", "argv clean");

        Path back = Files.createDirectories(temp.resolve("variables"));
        s.download("/outputs", TarExtractor.into(back, 16 * MiB), StopSignal.none());
        for (Map.Entry<String, String> e : env.entrySet()) {
            assertThat(back.resolve(e.getKey())).as(e.getKey()).hasBinaryContent(e.getValue().getBytes(StandardCharsets.UTF_8));
        }
    }

    @Test
    void aVariableOverTheKernelLimitFailsTheStepWithoutShowingItsValue() throws Exception {
        String value = largeValue(256 * 1024);
        Session s = open();
        StepOutcome outcome = s.run(new StepPayload("too big", List.of("/bin/sh", "-c", "echo ran"),
                Map.of("HUGE", value)), new RecordingOutput(), StopSignal.none());
        assertThat(outcome).isInstanceOfSatisfying(StepOutcome.Failed.class, f -> {
            assertThat(f.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
            assertThat(f.failure().reason()).contains("HUGE").doesNotContain(value.substring(0, 32));
        });
    }

    @Test
    void sweepRemovesAbandonedRunsKeepsGoingOnesAndNeverTouchesOtherRunners() throws Exception {
        RunSpec abandoned = spec().build();
        executor().start(abandoned, StopSignal.none()); // never closed: as if the runner crashed
        assertThat(leftovers(runnerId)).hasSize(1);

        SweepReport kept = executor().sweep(runnerId, Set.of(abandoned.runId()));
        assertThat(kept.removed()).isEmpty();
        assertThat(leftovers(runnerId)).hasSize(1);

        String otherRunner = "contract-" + randomHex(6);
        Session other = executor().start(RunSpec.builder(otherRunner, "run-" + randomHex(6), image()).build(), StopSignal.none());
        try {
            SweepReport swept = executor().sweep(runnerId, Set.of());
            assertThat(swept.removed()).hasSize(1);
            assertThat(swept.failed()).isEmpty();
            assertThat(leftovers(runnerId)).isEmpty();
            assertThat(leftovers(otherRunner)).hasSize(1);
        } finally {
            other.close();
        }
        assertThat(leftovers(otherRunner)).isEmpty();
    }

    @Test
    void startWithAnImageThatDoesNotExistFailsWithImageAndLeavesNothing() throws Exception {
        String missing = "local/knotless-missing-" + randomHex(6) + ":none";
        RunSpec spec = RunSpec.builder(runnerId, "run-" + randomHex(6), missing).killGrace(killGrace()).build();
        assertThatThrownBy(() -> executor().start(spec, StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.IMAGE);
                    assertThat(e.failure().reason()).contains(missing);
                });
        assertThat(leftovers(runnerId)).isEmpty();
    }

    @Test
    void uploadCreatesMissingDirectoriesAndLeavesExistingOnesAlone() throws Exception {
        Path src = Files.createDirectories(temp.resolve("small"));
        file(src.resolve("hello.txt"), "hello\n", "rw-r--r--");
        Session s = open();
        s.upload("/tmp/deep/er/dir", DirectoryTar.of(src), StopSignal.none());
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("check", "cat /tmp/deep/er/dir/hello.txt; stat -c %a /tmp"), out, StopSignal.none());
        assertThat(outcome).as("stderr: %s", out.stderr()).isEqualTo(new StepOutcome.Exited(0));
        assertThat(out.stdout()).isEqualTo("hello\n1777\n");
    }

    @Test
    void uploadOverItsByteLimitFailsWithLimit() throws Exception {
        Path src = Files.createDirectories(temp.resolve("too-big"));
        bigFile(src.resolve("blob.bin"), 2);
        TarSource limited = out -> DirectoryTar.of(src).writeTo(Bounded.output(out, 64 * 1024, null, "checkout"));
        Session s = open();
        assertThatThrownBy(() -> s.upload("/work", limited, StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
                    assertThat(e.failure().reason()).contains("checkout", "64 KiB");
                });
    }

    @Test
    void anUploadStoppedHalfWayFailsWithStopped() throws Exception {
        Session s = open();
        StopSignal signal = new StopSignal();
        TarSource endless = out -> {
            TarArchiveOutputStream tar = TarStreams.newOutput(out);
            TarArchiveEntry entry = new TarArchiveEntry("endless.bin");
            entry.setSize(1L << 40);
            tar.putArchiveEntry(entry);
            byte[] block = new byte[64 * 1024];
            while (true) {
                tar.write(block);
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
            }
        };
        Thread stopper = Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
            signal.stop(StopSignal.Reason.CANCELLED);
        });
        long started = System.nanoTime();
        assertThatThrownBy(() -> s.upload("/work", endless, signal))
                .isInstanceOfSatisfying(ExecutorException.class, e -> assertThat(e.failure().kind()).isEqualTo(Failure.Kind.STOPPED));
        stopper.join();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void downloadOfAMissingDirectorySaysSo() throws Exception {
        Session s = open();
        assertThatThrownBy(() -> s.download("/no/such/dir", in -> in.transferTo(OutputStream.nullOutputStream()), StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.INFRASTRUCTURE);
                    assertThat(e.failure().reason()).contains("no such directory in the run: /no/such/dir");
                });
    }

    @Test
    void outputsWithASymlinkPointingOutsideAreRefusedAndNothingIsWrittenOutside() throws Exception {
        Session s = open();
        assertThat(s.run(sh("evil", "ln -s /etc /outputs/evil && ln -s ../../.. /outputs/up && echo x > /outputs/fine.txt"),
                new RecordingOutput(), StopSignal.none())).isEqualTo(new StepOutcome.Exited(0));
        Path parent = Files.createDirectories(temp.resolve("symlink-download"));
        Path target = Files.createDirectories(parent.resolve("outputs"));
        assertThatThrownBy(() -> s.download("/outputs", TarExtractor.into(target, 16 * MiB), StopSignal.none()))
                .isInstanceOfSatisfying(ExecutorException.class, e -> {
                    assertThat(e.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
                    assertThat(e.failure().reason()).contains("evil");
                });
        assertThat(listing(parent)).containsExactly("outputs");
        assertThat(Files.exists(target.resolve("evil"), LinkOption.NOFOLLOW_LINKS)).isFalse();
        assertThat(Files.exists(target.resolve("up"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    /**
     * The executor never produces {@code ..} or absolute names itself, so a crafted archive rides
     * through the run as a file; the sink unwraps it and hands it to the extractor.
     */
    @Test
    void outputsWithDotDotOrAbsoluteNamesAreRefusedAndNothingIsWrittenOutside() throws Exception {
        Path parent = Files.createDirectories(temp.resolve("crafted-download"));
        Path target = Files.createDirectories(parent.resolve("outputs"));
        Map<String, byte[]> crafted = new TreeMap<>();
        crafted.put("dotdot.tar", tarOf("../escape", false));
        crafted.put("absolute.tar", tarOf(parent.resolve("absolute-escape").toString(), true));
        Session s = open();
        s.upload("/outputs", out -> writeTar(out, crafted), StopSignal.none());

        for (String name : crafted.keySet()) {
            TarSink unwrapping = in -> {
                TarArchiveInputStream outer = new TarArchiveInputStream(in);
                TarArchiveEntry entry;
                while ((entry = outer.getNextEntry()) != null) {
                    if (entry.getName().replaceFirst("^\\./", "").equals(name)) {
                        TarExtractor.into(target, MiB).readFrom(outer);
                        return;
                    }
                }
                throw new IOException(name + " is missing from the download");
            };
            assertThatThrownBy(() -> s.download("/outputs", unwrapping, StopSignal.none()))
                    .as(name)
                    .isInstanceOfSatisfying(ExecutorException.class, e -> {
                        assertThat(e.failure().kind()).isEqualTo(Failure.Kind.LIMIT);
                        assertThat(e.failure().reason()).contains("escape");
                    });
        }
        assertThat(listing(parent)).containsExactly("outputs");
        assertThat(listing(target)).isEmpty();
    }

    // ---- helpers for subclasses and scenarios --------------------------------------------------

    protected final String runnerId() {
        return runnerId;
    }

    /** A spec for a new run of this test's runner, on {@link #image()}. */
    protected RunSpec.Builder spec() {
        return RunSpec.builder(runnerId, "run-" + randomHex(6), image()).killGrace(killGrace());
    }

    /** Starts a session that is closed after the test. */
    protected Session open() throws ExecutorException {
        return open(spec().build());
    }

    protected Session open(RunSpec spec) throws ExecutorException {
        Session s = executor().start(spec, StopSignal.none());
        opened.add(s);
        return s;
    }

    protected static StepPayload sh(String name, String script) {
        return new StepPayload(name, List.of("/bin/sh", "-c", script), Map.of());
    }

    /** Every process's command line in the run, one a line. */
    protected static String processes(Session s) {
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("ps", "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done"),
                out, StopSignal.none());
        assertThat(outcome).isEqualTo(new StepOutcome.Exited(0));
        return out.stdout();
    }

    protected static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    private static void file(Path path, String content, String perms) throws IOException {
        Files.createDirectories(path.getParent());
        Files.writeString(path, content);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(perms));
    }

    /** Writes {@code mib} MiB of varied content quickly; returns its SHA-256 in hex. */
    private static String bigFile(Path path, int mib) throws IOException {
        byte[] block = new byte[(int) MiB];
        new Random(42).nextBytes(block);
        MessageDigest sha = sha256();
        try (OutputStream out = Files.newOutputStream(path)) {
            for (int i = 0; i < mib; i++) {
                block[0] = (byte) i;
                block[1] = (byte) (i >> 8);
                out.write(block);
                sha.update(block);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static String largeValue(int length) {
        StringBuilder sb = new StringBuilder(length);
        Random random = new Random(7);
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 '\"$`\\;|&()";
        while (sb.length() < length) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /** One line per entry: relative path, type, permissions, and link target or content hash. */
    private static List<String> describeTree(Path root) throws IOException {
        List<String> lines = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk.sorted()::iterator) {
                if (p.equals(root)) {
                    continue;
                }
                String rel = root.relativize(p).toString();
                if (Files.isSymbolicLink(p)) {
                    lines.add(rel + " link -> " + Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    lines.add(rel + " dir " + perms(p));
                } else {
                    lines.add(rel + " file " + perms(p) + " " + hash(p));
                }
            }
        }
        return lines;
    }

    private static String perms(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static String hash(Path p) throws IOException {
        MessageDigest sha = sha256();
        byte[] buffer = new byte[256 * 1024];
        try (InputStream in = Files.newInputStream(p)) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                sha.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** A tar holding one small file under a hostile name. */
    private static byte[] tarOf(String name, boolean absolute) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TarArchiveOutputStream tar = TarStreams.newOutput(bytes);
        byte[] content = "escaped\n".getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry entry = new TarArchiveEntry(name, absolute);
        entry.setSize(content.length);
        entry.setMode(0100644);
        tar.putArchiveEntry(entry);
        tar.write(content);
        tar.closeArchiveEntry();
        tar.finish();
        return bytes.toByteArray();
    }

    private static void writeTar(OutputStream out, Map<String, byte[]> files) throws IOException {
        TarArchiveOutputStream tar = TarStreams.newOutput(out);
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            TarArchiveEntry entry = new TarArchiveEntry(f.getKey());
            entry.setSize(f.getValue().length);
            entry.setMode(0100644);
            tar.putArchiveEntry(entry);
            tar.write(f.getValue());
            tar.closeArchiveEntry();
        }
        tar.finish();
    }
}
