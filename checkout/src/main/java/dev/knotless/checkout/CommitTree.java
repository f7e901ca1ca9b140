package dev.knotless.checkout;

import dev.knotless.executor.TarSource;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.tar.Printable;
import dev.knotless.tar.TarStreams;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.zip.DeflaterOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;

/**
 * A commit's tree as a tar: {@code git archive}'s entries copied through, then a minimal {@code
 * .git}. See {@link Mirror#tree(String)} for what the result holds.
 *
 * <p>{@code git archive} runs with {@code tar.umask=022}, so modes are what a checkout gives
 * (0644, 0755), and the mirror's {@code info/attributes} turns off {@code export-ignore} and
 * {@code export-subst}. Every entry gets the commit's time, so one commit always gives the same
 * bytes. One use per {@link #writeTo} call; git runs only while it is written.
 */
final class CommitTree implements TarSource {

    private final Path mirror;
    private final String sha;
    private final byte[] commitObject;
    private final FileTime time;
    private final boolean history;

    CommitTree(Path mirror, String sha, byte[] commitObject) {
        this(mirror, sha, commitObject, false);
    }

    /** @param history whether its {@code .git} holds the commit's whole history ({@link HistoryPack}) */
    CommitTree(Path mirror, String sha, byte[] commitObject, boolean history) {
        this.mirror = mirror;
        this.sha = sha;
        this.commitObject = commitObject.clone();
        this.time = FileTime.fromMillis(committerSeconds(commitObject) * 1000);
        this.history = history;
    }

    @Override
    public void writeTo(OutputStream out) throws IOException {
        Process git = Git.command(mirror, List.of("-c", "tar.umask=022", "archive", "--format=tar", sha)).start();
        Git.StderrDrain stderr = Git.StderrDrain.start(git);
        boolean written = false;
        try {
            TarArchiveOutputStream tar = TarStreams.newOutput(out);
            try {
                copyEntries(git.getInputStream(), tar);
                git.getInputStream().transferTo(OutputStream.nullOutputStream());
            } catch (IOException e) {
                // A reading error is usually git having failed: then its words are the better message.
                // A writing error (a size limit, a closed peer) leaves git running: stop it.
                if (!(e instanceof TransferLimitException) && exitsSoon(git)) {
                    failIfGitFailed(git, stderr, e);
                }
                throw e;
            }
            failIfGitFailed(git, stderr, null);
            writeGitDir(tar);
            tar.finish();
            tar.flush();
            written = true;
        } finally {
            if (!written) {
                Git.kill(git);
            }
        }
    }

    private void copyEntries(InputStream archive, TarArchiveOutputStream tar) throws IOException {
        // Not closed: closing would close git's stdout before the trailer is drained.
        @SuppressWarnings("resource")
        TarArchiveInputStream in = new TarArchiveInputStream(archive, StandardCharsets.UTF_8.name());
        TarArchiveEntry entry;
        while ((entry = in.getNextEntry()) != null) {
            if (entry.isGlobalPaxHeader() || isGitPath(entry.getName())) {
                continue;
            }
            TarArchiveEntry copy;
            if (entry.isSymbolicLink()) {
                copy = new TarArchiveEntry(entry.getName(), TarConstants.LF_SYMLINK);
                copy.setLinkName(entry.getLinkName());
                copy.setMode(0120000 | (entry.getMode() & 07777));
            } else if (entry.isDirectory()) {
                copy = new TarArchiveEntry(entry.getName().endsWith("/") ? entry.getName() : entry.getName() + "/");
                copy.setMode(040000 | (entry.getMode() & 07777));
            } else if (entry.isFile()) {
                copy = new TarArchiveEntry(entry.getName());
                copy.setMode(0100000 | (entry.getMode() & 07777));
                copy.setSize(entry.getSize());
            } else {
                continue;
            }
            copy.setIds(0, 0);
            copy.setModTime(time);
            tar.putArchiveEntry(copy);
            if (entry.isFile()) {
                long copied = in.transferTo(tar);
                if (copied != entry.getSize()) {
                    throw new IOException("git archive gave " + copied + " bytes for " + Printable.name(entry.getName())
                            + ", announced " + entry.getSize());
                }
            }
            tar.closeArchiveEntry();
        }
    }

    /** A {@code .git} segment anywhere (any case): git refuses such trees, a crafted one could hold hooks. */
    static boolean isGitPath(String name) {
        for (String segment : name.split("/")) {
            if (segment.toLowerCase(Locale.ROOT).equals(".git")) {
                return true;
            }
        }
        return false;
    }

    /**
     * HEAD (detached), config, empty refs, and either the commit object with a {@code shallow} file
     * or, for a checkout with history, the history's pack and its tags.
     */
    private void writeGitDir(TarArchiveOutputStream tar) throws IOException {
        boolean sha256 = sha.length() == 64;
        String config = "[core]\n"
                + "\trepositoryformatversion = " + (sha256 ? 1 : 0) + "\n"
                + "\tfilemode = true\n"
                + "\tbare = false\n"
                + (sha256 ? "[extensions]\n\tobjectformat = sha256\n" : "");
        directory(tar, ".git/");
        file(tar, ".git/HEAD", (sha + "\n").getBytes(StandardCharsets.US_ASCII), 0644);
        file(tar, ".git/config", config.getBytes(StandardCharsets.US_ASCII), 0644);
        directory(tar, ".git/objects/");
        directory(tar, ".git/objects/info/");
        directory(tar, ".git/objects/pack/");
        if (history) {
            try (HistoryPack pack = HistoryPack.of(mirror, sha)) {
                file(tar, ".git/objects/pack/" + pack.packName(), pack.pack(), 0444);
                file(tar, ".git/objects/pack/" + pack.indexName(), pack.index(), 0444);
                file(tar, ".git/packed-refs", pack.packedRefs(), 0644);
            }
        } else {
            file(tar, ".git/shallow", (sha + "\n").getBytes(StandardCharsets.US_ASCII), 0644);
            directory(tar, ".git/objects/" + sha.substring(0, 2) + "/");
            file(tar, ".git/objects/" + sha.substring(0, 2) + "/" + sha.substring(2), looseObject(), 0444);
        }
        directory(tar, ".git/refs/");
        directory(tar, ".git/refs/heads/");
        directory(tar, ".git/refs/tags/");
    }

    /** The commit as git stores a loose object: zlib of {@code "commit <size>\0<content>"}. */
    private byte[] looseObject() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DeflaterOutputStream zlib = new DeflaterOutputStream(bytes)) {
            zlib.write(("commit " + commitObject.length + "\0").getBytes(StandardCharsets.US_ASCII));
            zlib.write(commitObject);
        }
        return bytes.toByteArray();
    }

    private void directory(TarArchiveOutputStream tar, String name) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setMode(040755);
        entry.setIds(0, 0);
        entry.setModTime(time);
        tar.putArchiveEntry(entry);
        tar.closeArchiveEntry();
    }

    private void file(TarArchiveOutputStream tar, String name, Path content, int mode) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setMode(0100000 | mode);
        entry.setSize(java.nio.file.Files.size(content));
        entry.setIds(0, 0);
        entry.setModTime(time);
        tar.putArchiveEntry(entry);
        java.nio.file.Files.copy(content, tar);
        tar.closeArchiveEntry();
    }

    private void file(TarArchiveOutputStream tar, String name, byte[] content, int mode) throws IOException {
        TarArchiveEntry entry = new TarArchiveEntry(name);
        entry.setMode(0100000 | mode);
        entry.setSize(content.length);
        entry.setIds(0, 0);
        entry.setModTime(time);
        tar.putArchiveEntry(entry);
        tar.write(content);
        tar.closeArchiveEntry();
    }

    private static boolean exitsSoon(Process git) {
        try {
            return git.waitFor(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Throws git's own complaint when it exited with an error; {@code cause} is what reading saw. */
    private static void failIfGitFailed(Process git, Git.StderrDrain stderr, IOException cause) throws IOException {
        int exit;
        try {
            exit = git.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while git archive ran");
        }
        if (exit != 0) {
            String message;
            try {
                message = Git.oneLine(stderr.text());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                message = "exit code " + exit;
            }
            throw new IOException("git archive failed: " + message, cause);
        }
    }

    /** The committer's time from a commit object's {@code committer ... <seconds> <zone>} line. */
    static long committerSeconds(byte[] commitObject) {
        String text = new String(commitObject, StandardCharsets.UTF_8);
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                break;
            }
            if (line.startsWith("committer ")) {
                String[] parts = line.split(" ");
                if (parts.length >= 3) {
                    try {
                        return Long.parseLong(parts[parts.length - 2]);
                    } catch (NumberFormatException e) {
                        return 0;
                    }
                }
            }
        }
        return 0;
    }
}
