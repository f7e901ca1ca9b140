package dev.knotless.runner.run.step;

import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Session;
import dev.knotless.executor.ShellPayload;
import dev.knotless.executor.StopSignal;
import dev.knotless.plan.expression.ExpressionException;
import dev.knotless.runner.run.phase.Probe;
import dev.knotless.runner.run.step.evaluate.WorkspaceFiles;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workspace of a run's environment, read for {@code hashFiles} through the session, as every
 * executor runs a probe: one {@code find} for the names, then {@code sha256sum} over the matching
 * files in as few probes as their names fit in, so no file's bytes leave the environment. Regular
 * files only; a name with a newline is not read. The image needs {@code find} and {@code
 * sha256sum} (coreutils or busybox); without them the expression fails with one line.
 */
final class HashFiles implements WorkspaceFiles {

    /** The names one listing may come to. */
    static final int LISTING_BYTES = 16 << 20;
    /** The names one hashing probe names, as shell words. */
    static final int SCRIPT_BYTES = 64 << 10;

    private final Session session;
    private final String workspace;
    private final StopSignal signal;

    HashFiles(Session session, String workspace, StopSignal signal) {
        this.session = session;
        this.workspace = workspace;
        this.signal = signal;
    }

    @Override
    public String directory() {
        return workspace;
    }

    @Override
    public List<String> list() throws ExpressionException {
        Probe listing = probe("list files for hashFiles", "cd " + ShellPayload.quote(workspace)
                + " 2>/dev/null || exit 0; find . -type f 2>/dev/null; true", LISTING_BYTES);
        if (listing.cut()) {
            throw new ExpressionException("hashFiles lists at most " + (LISTING_BYTES >> 20) + " MiB of file names,"
                    + " and the workspace has more", -1);
        }
        return listing.text().lines().filter(l -> l.startsWith("./")).map(l -> l.substring(2)).toList();
    }

    @Override
    public Map<String, byte[]> hashes(List<String> files) throws ExpressionException {
        Map<String, byte[]> hashes = new LinkedHashMap<>();
        List<String> batch = new ArrayList<>();
        int length = 0;
        for (String file : files) {
            String word = " " + ShellPayload.quote("./" + file);
            if (!batch.isEmpty() && length + word.length() > SCRIPT_BYTES) {
                hash(batch, hashes);
                batch.clear();
                length = 0;
            }
            batch.add(file);
            length += word.length();
        }
        hash(batch, hashes);
        return hashes;
    }

    private void hash(List<String> batch, Map<String, byte[]> hashes) throws ExpressionException {
        StringBuilder script = new StringBuilder("cd " + ShellPayload.quote(workspace) + " && exec sha256sum --");
        batch.forEach(file -> script.append(' ').append(ShellPayload.quote("./" + file)));
        List<String> lines = probe("hash files for hashFiles", script.toString(), batch.size() * 200 + 1024).text()
                .lines().toList();
        if (lines.size() != batch.size()) {
            throw new ExpressionException("hashFiles read " + lines.size() + " hashes for " + batch.size() + " files", -1);
        }
        for (int i = 0; i < batch.size(); i++) {
            String line = lines.get(i).startsWith("\\") ? lines.get(i).substring(1) : lines.get(i);
            if (!line.matches("[0-9a-fA-F]{64}( .*)?")) {
                throw new ExpressionException("hashFiles could not read the hash of " + batch.get(i), -1);
            }
            hashes.put(batch.get(i), HexFormat.of().parseHex(line.substring(0, 64)));
        }
    }

    private Probe probe(String name, String script, int most) throws ExpressionException {
        try {
            return Probe.run(session, name, script, most, signal);
        } catch (ExecutorException e) {
            throw new ExpressionException("hashFiles could not read the workspace: " + e.failure().reason()
                    + (e.failure().reason().endsWith("exited with 127") ? " (is there no sha256sum or find in the image?)" : ""),
                    -1);
        }
    }
}
