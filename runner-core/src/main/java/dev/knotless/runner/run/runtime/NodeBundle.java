package dev.knotless.runner.run.runtime;

import dev.knotless.executor.RunLayout;
import dev.knotless.executor.TarSource;
import dev.knotless.plan.BroughtRuntime;
import dev.knotless.tar.TarStreams;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * The runner host's Node, packed to run in any Linux image of the host's architecture: the binary
 * with the shared libraries it loads and their dynamic loader, started through that loader, so
 * that an image without glibc or {@code libstdc++} (busybox, Alpine) runs it as well as Debian
 * does. GitHub's runner does the same in spirit: its Node is its own, mounted into container jobs.
 *
 * <p>In the run, under {@code RunLayout.RUNTIMES/node}: {@code bin/node} (a script that execs the
 * loader), {@code bin/node.real}, {@code lib/*}, and {@code lib/preload.cjs} ({@link #PRELOAD}).
 */
public final class NodeBundle implements HostRuntime {

    /** Where it is in every run. */
    public static final String DIR = RunLayout.RUNTIMES + "/node";
    /**
     * Loaded before every program the Node runs: {@code process.execPath} back to {@code bin/node}
     * (through the loader it would be the loader), and the variables {@link BroughtRuntime#RENAMES}
     * lists renamed, once (the list goes, so the processes it starts do not rename again).
     */
    private static final String PRELOAD = """
            process.execPath = '%1$s/bin/node';
            const renames = process.env['%2$s'];
            delete process.env['%2$s'];
            for (const pair of (renames || '').split(' ').filter(Boolean)) {
              const at = pair.indexOf('=');
              const from = pair.slice(0, at);
              if (at > 0 && from in process.env) {
                process.env[pair.slice(at + 1)] = process.env[from];
                delete process.env[from];
              }
            }
            """;
    private static final Pattern LIBRARY = Pattern.compile("(?:=>\\s*)?(/\\S+)\\s+\\(0x");

    private final Path node;
    private final String version;
    private final Map<String, Path> libraries;
    private final String loader;

    private NodeBundle(Path node, String version, Map<String, Path> libraries, String loader) {
        this.node = node;
        this.version = version;
        this.libraries = libraries;
        this.loader = loader;
    }

    /**
     * The Node at {@code node} on this host, with the libraries {@code ldd} says it loads.
     *
     * @throws IOException when it is not there, does not run, or its libraries cannot be listed
     */
    public static NodeBundle of(Path node) throws IOException {
        Path binary = node.toRealPath();
        String version = output(List.of(binary.toString(), "--version")).strip().lines().findFirst().orElse("");
        if (!version.startsWith("v")) {
            throw new IOException(node + " --version printed '" + version + "', not a Node version");
        }
        Map<String, Path> libraries = new LinkedHashMap<>();
        String loader = null;
        for (String line : output(List.of("ldd", binary.toString())).lines().toList()) {
            Matcher m = LIBRARY.matcher(line);
            if (m.find()) {
                Path library = Path.of(m.group(1));
                String name = library.getFileName().toString();
                libraries.put(name, library.toRealPath());
                if (name.startsWith("ld-linux") || name.startsWith("ld64")) {
                    loader = name;
                }
            }
        }
        if (loader == null) {
            throw new IOException("ldd " + binary + " names no dynamic loader; a Node the runner brings is a dynamically"
                    + " linked one, as nodejs.org builds it");
        }
        return new NodeBundle(binary, version, libraries, loader);
    }

    @Override
    public String describe() {
        return "Node " + version + " (" + node + ")";
    }

    @Override
    public String command() {
        return "bin/node";
    }

    @Override
    public TarSource files() {
        return out -> {
            TarArchiveOutputStream tar = TarStreams.newOutput(out);
            String start = "#!/bin/sh\nexec " + DIR + "/lib/" + loader + " --library-path " + DIR + "/lib " + DIR
                    + "/bin/node.real --require " + DIR + "/lib/preload.cjs \"$@\"\n";
            text(tar, "bin/node", start, 0100755);
            file(tar, "bin/node.real", node, 0100755);
            for (Map.Entry<String, Path> library : libraries.entrySet()) {
                file(tar, "lib/" + library.getKey(), library.getValue(), 0100755);
            }
            text(tar, "lib/preload.cjs", PRELOAD.formatted(DIR, BroughtRuntime.RENAMES), 0100644);
            tar.finish();
        };
    }

    private static void text(TarArchiveOutputStream tar, String name, String text, int mode) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setMode(mode);
        entry.setSize(bytes.length);
        tar.putArchiveEntry(entry);
        tar.write(bytes);
        tar.closeArchiveEntry();
    }

    private static void file(TarArchiveOutputStream tar, String name, Path path, int mode) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setMode(mode);
        entry.setSize(Files.size(path));
        tar.putArchiveEntry(entry);
        try (InputStream in = Files.newInputStream(path)) {
            in.transferTo(tar);
        }
        tar.closeArchiveEntry();
    }

    private static String output(List<String> command) throws IOException {
        Process process = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true).start();
        try (OutputStream stdin = process.getOutputStream(); InputStream out = process.getInputStream()) {
            byte[] bytes = out.readNBytes(1 << 16);
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not end in 30 s");
            }
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " exited with " + process.exitValue() + ": " + text.strip());
            }
            return text;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + command.getFirst(), e);
        }
    }
}
