package dev.knotless.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.executor.Session;
import dev.knotless.executor.StepOutcome;
import dev.knotless.executor.StepPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/** What the contract's scenarios share: steps in sh, the run's processes, files, trees and tars to compare. */
final class ContractSupport {

    static final long MiB = 1024 * 1024;
    /** A real 1x1 PNG. */
    static final String PIXEL_PNG =
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

    private ContractSupport() {}

    static StepPayload sh(String name, String script) {
        return new StepPayload(name, List.of("/bin/sh", "-c", script), Map.of());
    }

    /** How a step ended and how long it took to. */
    record Timed(StepOutcome outcome, Duration took) {}

    /** Runs {@code step} with a 2-second timeout, timing it: the start of each timeout case. */
    static Timed withTwoSecondTimeout(Session s, StepPayload step) {
        long started = System.nanoTime();
        StepOutcome outcome;
        try (StopSignal timeout = StopSignal.none().child(Duration.ofSeconds(2))) {
            outcome = s.run(step, new RecordingOutput(), timeout);
        }
        return new Timed(outcome, Duration.ofNanos(System.nanoTime() - started));
    }

    /** Every process's command line in the run, one a line. */
    static String processes(Session s) {
        RecordingOutput out = new RecordingOutput();
        StepOutcome outcome = s.run(sh("ps", "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo; done"),
                out, StopSignal.none());
        assertThat(outcome).isEqualTo(new StepOutcome.Exited(0));
        return out.stdout();
    }

    static String randomHex(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    static void file(Path path, String content, String perms) throws IOException {
        Files.createDirectories(path.getParent());
        Files.writeString(path, content);
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(perms));
    }

    /** Writes {@code mib} MiB of varied content quickly; returns its SHA-256 in hex. */
    static String bigFile(Path path, int mib) throws IOException {
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

    static String largeValue(int length) {
        StringBuilder sb = new StringBuilder(length);
        Random random = new Random(7);
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 '\"$`\\;|&()";
        while (sb.length() < length) {
            sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /** One line per entry: relative path, type, permissions, and link target or content hash. */
    static List<String> describeTree(Path root) throws IOException {
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

    static String perms(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    static String hash(Path p) throws IOException {
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

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> list = Files.list(dir)) {
            return list.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** A tar holding one small file under a hostile name. */
    static byte[] tarOf(String name, boolean absolute) throws IOException {
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

    static void writeTar(OutputStream out, Map<String, byte[]> files) throws IOException {
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

    /**
     * A sink that finds the file {@code name} in the downloaded tar and hands its content, itself a
     * tar, to {@code inner}: how a crafted archive rides through a run that no engine would emit.
     */
    static TarSink unwrapping(String name, TarSink inner) {
        return in -> {
            TarArchiveInputStream outer = new TarArchiveInputStream(in);
            TarArchiveEntry entry;
            while ((entry = outer.getNextEntry()) != null) {
                if (entry.getName().replaceFirst("^\\./", "").equals(name)) {
                    inner.readFrom(outer);
                    return;
                }
            }
            throw new IOException(name + " is missing from the download");
        };
    }
}
