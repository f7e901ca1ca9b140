package dev.knotless.runner.run.step.protocol;

import dev.knotless.executor.TarSink;
import dev.knotless.executor.TransferLimitException;
import dev.knotless.plan.StepFiles;
import dev.knotless.tar.ArchiveBudget;
import dev.knotless.tar.ArchiveLimits;
import dev.knotless.tar.Bounded;
import dev.knotless.tar.Printable;
import dev.knotless.time.Deadline;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

/**
 * Reads one step's files out of the archive of its directory, in memory, as hostile input: at
 * most {@link #MOST_BYTES} a file (GitHub's runner's bound on a summary; here every file's), the
 * archive's entries, names and sparse entries held by the repository's archive rules ({@link
 * ArchiveBudget}), and the whole stream by bytes and a deadline. A file over its bound is refused
 * from its header, before any of its bytes is read, so a 2 GiB sparse file costs one header. Only
 * the files the run made there are taken; a link in their place, an entry that would escape the
 * directory, or one file twice refuses the archive, and the step with it.
 */
public final class HandedFiles implements TarSink {

    /** Bytes one file may hand back: GitHub's runner's bound on a step summary (1 MiB). */
    public static final int MOST_BYTES = 1 << 20;
    /** Entries an archive of the directory may have: the directory, its files, and a few a step made beside them. */
    static final int MOST_ENTRIES = 32;

    private final StepFileLayout layout;
    private final Deadline deadline;
    private final Map<StepFiles.Purpose, byte[]> read = new EnumMap<>(StepFiles.Purpose.class);

    /** @param deadline when the download must have ended, however slowly its bytes come */
    public HandedFiles(StepFileLayout layout, Deadline deadline) {
        this.layout = layout;
        this.deadline = deadline;
    }

    @Override
    public void readFrom(InputStream in) throws IOException {
        int purposes = StepFiles.Purpose.values().length;
        ArchiveBudget budget = new ArchiveBudget(new ArchiveLimits((long) purposes * MOST_BYTES, MOST_ENTRIES,
                ArchiveLimits.DEFAULT_NAME_BYTES, ArchiveLimits.DEFAULT_NAME_BYTES * 4L));
        InputStream bounded = Bounded.input(in, (long) (purposes + 1) * MOST_BYTES, deadline, "the step's files");
        TarArchiveInputStream tar = new TarArchiveInputStream(bounded, StandardCharsets.UTF_8.name());
        for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
            String name = relative(entry.getName());
            Optional<StepFiles.Purpose> purpose = layout.purposeOf(name);
            long size = Math.max(entry.getSize(), entry.getRealSize());
            if (purpose.isPresent() && regular(entry) && size > MOST_BYTES) {
                // said before the archive's own bound would say it less plainly
                throw new TransferLimitException(layout.variable(purpose.get()) + " is " + Bounded.bytes(size)
                        + "; a step hands back at most " + Bounded.bytes(MOST_BYTES) + " through one file");
            }
            budget.admit(entry);
            if (name.isEmpty() || name.equals(".")) {
                continue; // the directory itself
            }
            if (purpose.isEmpty()) {
                if (size > 0) {
                    throw new TransferLimitException("the step's files directory holds '" + Printable.name(name)
                            + "', which the runner did not make; only its own files may be there");
                }
                continue; // an empty file or a directory a tool left beside them says nothing
            }
            String variable = layout.variable(purpose.get());
            if (!regular(entry)) {
                throw new TransferLimitException(variable + " is not a regular file (a link or a directory took its place)");
            }
            if (read.containsKey(purpose.get())) {
                throw new TransferLimitException("the archive of the step's files holds " + variable + " twice");
            }
            ByteArrayOutputStream content = new ByteArrayOutputStream((int) size);
            budget.copy(tar, content, name);
            read.put(purpose.get(), content.toByteArray());
        }
    }

    /** A plain file: commons-compress calls a link or a device a file too. */
    private static boolean regular(TarArchiveEntry entry) {
        return entry.isFile() && !entry.isSymbolicLink() && !entry.isLink() && !entry.isCharacterDevice()
                && !entry.isBlockDevice() && !entry.isFIFO();
    }

    /** The files read, by purpose; a purpose whose file the step removed is absent. */
    public Map<StepFiles.Purpose, byte[]> files() {
        return Collections.unmodifiableMap(read);
    }

    /**
     * {@code name} relative to the downloaded directory: executors name entries {@code ./output}
     * or {@code output}; anything absolute or with {@code ..} would escape it and is refused.
     */
    private static String relative(String name) throws TransferLimitException {
        String plain = name;
        while (plain.startsWith("./")) {
            plain = plain.substring(2);
        }
        if (plain.endsWith("/")) {
            plain = plain.substring(0, plain.length() - 1);
        }
        if (plain.startsWith("/") || plain.equals("..") || plain.startsWith("../") || plain.contains("/../")
                || plain.endsWith("/..")) {
            throw new TransferLimitException("refused the step's files: entry '" + Printable.name(name)
                    + "' would escape their directory");
        }
        return plain;
    }
}
