package dev.knotless.checkout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One {@code git cat-file --batch-command} (git 2.36) in a mirror, asked one request at a time,
 * each answer read whole before the next request. An object's size is asked ({@code info}) before
 * its content ({@code contents}), so nothing over a cap is ever read into memory. Closing it
 * closes git's stdin and stdout, then ends git.
 */
final class CatFileBatch implements AutoCloseable {

    /**
     * The most of a commit or tree object read into memory: far above a real one (a tree entry is
     * some 50 bytes), far below what a crafted repository could make git print.
     */
    static final int MAX_OBJECT_BYTES = 16 << 20;

    private final Process process;
    private final Git.StderrDrain stderr;
    private final OutputStream requests;
    private final InputStream answers;
    private final String repo;

    private CatFileBatch(Process process, Git.StderrDrain stderr, String repo) {
        this.process = process;
        this.stderr = stderr;
        this.requests = process.getOutputStream();
        this.answers = process.getInputStream();
        this.repo = repo;
    }

    /** Starts git in the bare repository {@code mirror}; {@code repo} names it in messages. */
    static CatFileBatch start(Path mirror, String repo) throws IOException {
        Process process = Git.command(mirror, List.of("cat-file", "--batch-command"))
                .redirectInput(ProcessBuilder.Redirect.PIPE)
                .start();
        return new CatFileBatch(process, Git.StderrDrain.start(process), repo);
    }

    /**
     * Asks for {@code name}; its content when git has it and it is of {@code type}, else empty.
     *
     * @param what the object as a message names it, such as {@code commit <sha>}
     * @throws CheckoutException when it is larger than {@link #MAX_OBJECT_BYTES}, before it is read
     */
    Optional<byte[]> object(String name, String type, String what) throws IOException {
        String[] header = ask("info " + name);
        if (header.length != 3 || !Mirror.SHA.matcher(header[0]).matches() || !header[1].equals(type)) {
            return Optional.empty(); // "<name> missing", "<name> ambiguous", or another type
        }
        long size = Long.parseLong(header[2]);
        if (size > MAX_OBJECT_BYTES) {
            throw new CheckoutException(what + " in " + repo + " is " + size + " bytes; a " + type
                    + " read into memory is limited to " + (MAX_OBJECT_BYTES >> 20) + " MiB");
        }
        return Optional.of(content(header[0], size));
    }

    /** Asks for the size of blob {@code id}, {@code file} of commit {@code sha}. */
    long blobSize(String id, String file, String sha) throws IOException {
        String[] parts = ask("info " + id);
        if (parts.length != 3 || !parts[1].equals("blob")) {
            throw new CheckoutException("could not read " + file + " of " + sha + " in " + repo
                    + ": git cat-file answered '" + String.join(" ", parts) + "'" + stderrText());
        }
        return Long.parseLong(parts[2]);
    }

    /** Asks for the content of an object whose size {@code info} gave. */
    byte[] content(String id, long size) throws IOException {
        String[] header = ask("contents " + id);
        if (header.length != 3 || Long.parseLong(header[2]) != size) {
            throw new IOException("git cat-file changed its answer for " + id + ": '" + String.join(" ", header) + "'");
        }
        return answerContent(size);
    }

    @Override
    @SuppressWarnings("try") // the streams are closed as a try closes its resources
    public void close() throws IOException {
        try (OutputStream in = requests; InputStream out = answers) {
            // closed in reverse order: git's stdout, then its stdin
        } finally {
            Git.endLocal(process);
        }
    }

    /** Sends one command and reads the header line of its answer, split at spaces. */
    private String[] ask(String command) throws IOException {
        requests.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        requests.flush();
        return readLine(answers).split(" ");
    }

    /** An answer's content and the newline after it. */
    private byte[] answerContent(long size) throws IOException {
        if (size > Integer.MAX_VALUE - 8) {
            throw new IOException("git cat-file announced " + size + " bytes");
        }
        byte[] content = answers.readNBytes((int) size);
        if (content.length != size || answers.read() != '\n') {
            throw new IOException("git cat-file ended early");
        }
        return content;
    }

    private String stderrText() {
        try {
            String text = stderr.text();
            return text.isEmpty() ? "" : " (" + Git.oneLine(text) + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) >= 0 && b != '\n') {
            line.write(b);
            if (line.size() > 1024) {
                throw new IOException("git cat-file printed a header longer than 1 KiB");
            }
        }
        if (b < 0) {
            throw new IOException("git cat-file ended early");
        }
        return line.toString(StandardCharsets.UTF_8);
    }
}
