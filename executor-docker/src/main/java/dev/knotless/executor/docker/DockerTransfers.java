package dev.knotless.executor.docker;

import dev.knotless.executor.toolkit.DetachedStep;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.StopSignal;
import dev.knotless.executor.TarSink;
import dev.knotless.executor.TarSource;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.tar.TarStreams;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's uploads and downloads: the container's archive endpoints, and the run layout's
 * directories made when the image lacks them.
 *
 * <p>Downloads ask for {@code <dir>/.}, for which Docker names entries {@code ./…}: the sink sees
 * entries relative to {@code dir}, with nothing to strip. Directories arrive plain and absolute
 * (the guard made them so).
 */
final class DockerTransfers {

    private static final Logger log = LoggerFactory.getLogger(DockerTransfers.class);

    private static final int UPLOAD_CHUNK = 256 * 1024;

    private final RunContainer container;
    private final EngineClient engine;
    /**
     * Directories this session made or saw, so an upload into one needs no {@code stat} first
     * (each Engine call is tens of milliseconds before a run's first step). Forgotten once a step
     * has run: a step may remove them.
     */
    private final Set<String> knownDirectories = ConcurrentHashMap.newKeySet();

    DockerTransfers(RunContainer container) {
        this.container = container;
        this.engine = container.engine();
    }

    void upload(String path, TarSource tar, StopSignal signal) throws ExecutorException {
        String what = "upload to " + path;
        long started = System.nanoTime();
        try {
            ensureDirectory(path);
            String target = archive(path);
            try (HttpConnection c = engine.connect()) {
                c.abortOn(signal);
                Map<String, String> headers = new LinkedHashMap<>();
                headers.put("Content-Type", EngineClient.TAR);
                headers.put("Transfer-Encoding", "chunked");
                c.writeHead("PUT", target, headers);
                HttpConnection.ChunkedOutput body = c.chunkedBody(UPLOAD_CHUNK);
                try {
                    tar.writeTo(body);
                    body.finish();
                } catch (TransferLimitException e) {
                    c.abort();
                    throw new ExecutorException(Failure.Kind.LIMIT, e.getMessage());
                } catch (IOException e) {
                    if (body.connectionFailure() == null) {
                        c.abort();
                        ExecutorException.throwIfStopped(signal, what);
                        throw new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE,
                                "cannot pack the upload to " + path + ": " + e.getMessage()), e);
                    }
                    throw daemonAnswerOr(c, e);
                }
                HttpConnection.Response r = c.readResponse(false);
                if (r.status() >= 400) {
                    throw engine.error(r, "PUT", target);
                }
                log.debug("upload container={} path={} ms={}", container.name(), path, (System.nanoTime() - started) / 1_000_000);
            }
        } catch (IOException e) {
            ExecutorException.throwIfStopped(signal, what);
            throw failure(what, e);
        }
    }

    void download(String path, TarSink sink, StopSignal signal) throws ExecutorException {
        String what = "download of " + path;
        try {
            String target = archive(path.equals("/") ? "/." : path + "/.");
            try (HttpConnection c = engine.connect()) {
                c.abortOn(signal);
                c.writeHead("GET", target, Map.of("Accept-Encoding", "identity"));
                HttpConnection.Response r = c.readResponse(false);
                if (r.status() >= 400) {
                    EngineException e = engine.error(r, "GET", target);
                    if (e.isNoSuchContainer()) {
                        throw e;
                    }
                    if (e.isNotFound()) {
                        throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "no such directory in the run: " + path);
                    }
                    if (String.valueOf(e.getMessage()).contains("not a directory")) {
                        throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, "not a directory in the run: " + path);
                    }
                    throw e;
                }
                try {
                    sink.readFrom(r.body());
                } catch (TransferLimitException e) {
                    throw new ExecutorException(Failure.Kind.LIMIT, e.getMessage());
                }
            }
        } catch (IOException e) {
            ExecutorException.throwIfStopped(signal, what);
            throw failure(what, e);
        }
    }

    /** The container's layout was made before this session took it (a warm container). */
    void layoutMade() {
        knownDirectories.addAll(List.of(RunLayout.WORK, RunLayout.STEPS, RunLayout.OUTPUTS));
    }

    /** Creates the run layout's directories that the image lacks. */
    void createLayout() throws IOException {
        List<String> missing = new ArrayList<>();
        // the Engine makes the working directory (/work) when it starts the container
        for (String dir : List.of(RunLayout.STEPS, RunLayout.OUTPUTS)) {
            if (engine.stat(container.id(), dir).isEmpty()) {
                missing.add(dir.substring(1));
            }
        }
        if (!missing.isEmpty()) {
            putDirectories("/", missing, 040755);
        }
        // the detached steps' records: written by the step's receiver, as the image's user
        putDirectories(RunLayout.STEPS, List.of(DetachedStep.ROOT.substring(RunLayout.STEPS.length() + 1)), 041777);
        layoutMade();
    }

    /** A step ran: it may have removed any directory. */
    void forgetDirectories() {
        knownDirectories.clear();
    }

    private String archive(String path) throws IOException {
        return engine.target("/containers/" + container.id() + "/archive?path=" + EngineClient.query(path));
    }

    /** After a write failed: the daemon may have answered (and hung up) before reading everything. */
    private IOException daemonAnswerOr(HttpConnection c, IOException writeFailure) {
        try {
            HttpConnection.Response r = c.readResponse(false);
            if (r.status() >= 400) {
                return engine.error(r, "PUT", "archive");
            }
        } catch (IOException ignored) {
            // no answer: report the write failure
        }
        return writeFailure;
    }

    /**
     * Makes {@code path} a directory in the run. Only missing components are created (mode 0755,
     * owned by root): uploading a directory entry over an existing one would change its mode.
     */
    private void ensureDirectory(String path) throws IOException, ExecutorException {
        if (knownDirectories.contains(path)) {
            return;
        }
        if (directoryExists(path)) {
            return;
        }
        List<String> missing = new ArrayList<>();
        String existing = path;
        while (true) {
            int slash = existing.lastIndexOf('/');
            missing.add(0, existing.substring(slash + 1));
            existing = slash == 0 ? "/" : existing.substring(0, slash);
            if (existing.equals("/")) {
                break;
            }
            if (directoryExists(existing)) {
                break;
            }
        }
        putDirectories(existing, List.of(String.join("/", missing)), 040755);
    }

    /** Whether {@code path} is a directory in the run; false when it is missing, a failure when it is something else. */
    private boolean directoryExists(String path) throws IOException, ExecutorException {
        Optional<EngineClient.PathStat> stat = engine.stat(container.id(), path);
        if (stat.isPresent() && !stat.get().directory()) {
            throw new ExecutorException(Failure.Kind.INFRASTRUCTURE, path + " is not a directory in the run");
        }
        return stat.isPresent();
    }

    /** Creates the given relative directories (with their parents, all of {@code mode}) under {@code base} in one request. */
    private void putDirectories(String base, List<String> relativeDirs, int mode) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        TarArchiveOutputStream tar = TarStreams.newOutput(bytes);
        List<String> done = new ArrayList<>();
        for (String dir : relativeDirs) {
            String prefix = "";
            for (String part : dir.split("/")) {
                prefix = prefix.isEmpty() ? part : prefix + "/" + part;
                if (done.contains(prefix)) {
                    continue;
                }
                done.add(prefix);
                TarArchiveEntry entry = new TarArchiveEntry(prefix + "/");
                entry.setMode(mode);
                entry.setIds(0, 0);
                entry.setModTime(Instant.now().toEpochMilli());
                tar.putArchiveEntry(entry);
                tar.closeArchiveEntry();
            }
        }
        tar.finish();
        byte[] body = bytes.toByteArray();
        String target = archive(base);
        try (HttpConnection c = engine.connect()) {
            c.writeHead("PUT", target, Map.of("Content-Type", EngineClient.TAR, "Content-Length", String.valueOf(body.length)));
            c.write(ByteBuffer.wrap(body));
            HttpConnection.Response r = c.readResponse(false);
            if (r.status() >= 400) {
                throw engine.error(r, "PUT", target);
            }
        }
    }

    private ExecutorException failure(String what, IOException e) {
        if (e instanceof EngineException ee && (ee.isNoSuchContainer() || ee.isNotRunning())) {
            return new ExecutorException(new Failure(Failure.Kind.LOST, what + " failed: the run's container "
                    + container.name() + (ee.isNoSuchContainer() ? " is gone" : " is not running")), e);
        }
        Optional<String> gone = container.gone();
        if (gone.isPresent()) {
            return new ExecutorException(new Failure(Failure.Kind.LOST, what + " failed: container " + gone.get()), e);
        }
        return new ExecutorException(new Failure(Failure.Kind.INFRASTRUCTURE, what + " failed: " + e.getMessage()), e);
    }
}
