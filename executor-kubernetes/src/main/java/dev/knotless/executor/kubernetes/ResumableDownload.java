package dev.knotless.executor.kubernetes;

import dev.knotless.executor.toolkit.BlockInputStream;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A download's tar stream that survives cut exec streams. When an exec ends without an exit
 * status (a proxy's cut, a dropped connection), the same archive is asked for again and read on
 * after the bytes already delivered, once the new stream's bytes up to there are the same as
 * those delivered (SHA-256): a directory that changed between the two fails the download instead
 * of mixing two archives. The reader sees one stream.
 *
 * <p>Why this works: the download runs {@code tar -c} over a directory whose steps have ended, in
 * a fixed order, so the same directory gives the same bytes. Why not a spool file on the runner:
 * it would hold the whole archive before the caller's limits ever see it.
 *
 * <p>Concurrency: read by one thread; {@link #stop} may come from another (a stop signal).
 */
final class ResumableDownload extends BlockInputStream {

    private static final Logger log = LoggerFactory.getLogger(ResumableDownload.class);
    /** Streams opened again for one download before it fails. */
    static final int MAX_RESUMES = 5;

    private final Supplier<PodExec> opener;
    private final Supplier<Optional<String>> podGone;
    private final Runnable resumed;
    private final String what;
    private final MessageDigest delivered = sha256();
    private long count;
    private int resumes;
    private volatile boolean stopped;
    private volatile PodExec exec;
    private InputStream in;
    private PodExec.@Nullable Result result;

    /**
     * @param opener starts the download's exec (stdout to be read from {@link PodExec#output()})
     * @param podGone why the pod cannot run execs any more, if it cannot
     * @param resumed called each time the stream is opened again (a counter)
     */
    ResumableDownload(Supplier<PodExec> opener, Supplier<Optional<String>> podGone, Runnable resumed, String what) {
        this.opener = opener;
        this.podGone = podGone;
        this.resumed = resumed;
        this.what = what;
        this.exec = opener.get();
        this.in = exec.output();
    }

    /** How the last exec ended: as the stream's end found it, else as it ends now. */
    PodExec.Result finish() throws IOException {
        return result != null ? result : await(exec);
    }

    /** Ends the download: the current exec is closed and no stream is opened again. */
    void stop() {
        stopped = true;
        PodExec e = exec;
        if (e != null) {
            e.close();
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (true) {
            if (result != null) {
                return -1;
            }
            int n;
            try {
                n = in.read(b, off, len);
            } catch (IOException cut) {
                n = -1; // the exec's status says whether this was the end
            }
            if (n > 0) {
                delivered.update(b, off, n);
                count += n;
                return n;
            }
            PodExec.Result ended = await(exec);
            if (ended.exitCode() != null || stopped) {
                result = ended;
                return -1;
            }
            resume(ended);
        }
    }

    /** Opens the stream again and reads it up to where the last one stopped, checking it is the same. */
    private void resume(PodExec.Result cut) throws IOException {
        byte[] want = digestSoFar();
        while (true) {
            if (++resumes > MAX_RESUMES) {
                throw new IOException(what + ": the stream was cut " + MAX_RESUMES + " times (last: "
                        + (cut.message().isEmpty() ? "no exit status" : cut.message()) + ")");
            }
            Optional<String> gone = podGone.get();
            if (gone.isPresent()) {
                throw new IOException(what + ": " + gone.get());
            }
            pause(100L << Math.min(resumes, 5));
            if (stopped) {
                throw new IOException(what + " stopped");
            }
            exec.close();
            try {
                exec = opener.get();
            } catch (KubernetesClientException e) {
                cut = new PodExec.Result(null, KubernetesExecutor.message(e));
                continue;
            }
            in = exec.output();
            resumed.run();
            log.info("download resumed what={} offset={} after={}", what, count, cut.message().isEmpty() ? "no status" : cut.message());
            MessageDigest again = sha256();
            long left = count;
            byte[] buffer = new byte[64 * 1024];
            boolean whole = true;
            while (left > 0) {
                int n;
                try {
                    n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                } catch (IOException e) {
                    n = -1;
                }
                if (n < 0) {
                    whole = false;
                    break;
                }
                again.update(buffer, 0, n);
                left -= n;
            }
            if (whole) {
                if (!Arrays.equals(again.digest(), want)) {
                    throw new IOException(what + ": the archive sent again after a cut differs from the first "
                            + count + " bytes sent before (the directory changed meanwhile)");
                }
                return;
            }
            cut = await(exec);
            if (cut.exitCode() != null) {
                throw new IOException(what + ": the archive sent again after a cut is shorter than the " + count
                        + " bytes sent before (exit code " + cut.exitCode() + ")");
            }
        }
    }

    private byte[] digestSoFar() throws IOException {
        try {
            return ((MessageDigest) delivered.clone()).digest();
        } catch (CloneNotSupportedException e) {
            throw new IOException("cannot resume " + what + ": SHA-256 state cannot be copied", e);
        }
    }

    private static PodExec.Result await(PodExec exec) throws IOException {
        try {
            return exec.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted");
        }
    }

    private static void pause(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted");
        }
    }

    @Override
    public void close() {
        PodExec e = exec;
        if (e != null) {
            e.close();
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}
