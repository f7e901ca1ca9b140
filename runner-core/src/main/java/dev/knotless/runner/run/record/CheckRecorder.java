package dev.knotless.runner.run.record;

import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStore;
import dev.knotless.forge.CheckPublisher;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The one place a check is recorded, always in the same order (docs/design/runs.md, "Recording a
 * check"):
 *
 * <ol>
 *   <li>the check file ({@link CheckStore}): what people, {@code checks} and the HTTP API read;
 *   <li>the run's state row ({@link CheckRows}, or the row write a caller gives): what the queue
 *       and restart recovery go by;
 *   <li>the publisher ({@link CheckPublisher}), best effort: a forge that cannot be told is one log
 *       line, never a lost check.
 * </ol>
 *
 * <p>Why this order: recovery after a crash goes by the row and writes the file again, so a crash
 * between the file and the row leaves a row that recovery still ends, and the two agree again; the
 * other order would leave a final row beside a file that says {@code running} for ever. The forge
 * is told last so that it only ever shows a check the runner has durably.
 *
 * <p>A running check goes to the file and to the publisher's {@link CheckPublisher#started}, not
 * to the row: its row was marked running when the queue handed the run out. Most publishers show
 * runs only when they end; a commit status shows them while they go.
 *
 * <p>Concurrency: thread-safe when its parts are (they are: one file per check, a locked
 * database, a thread-safe publisher); called from run threads at once.
 */
public final class CheckRecorder {

    /** What a caller writes to the state row of a check; false when the row took no change. */
    @FunctionalInterface
    public interface RowWrite {
        boolean write(Check check) throws IOException;
    }

    private final CheckStore files;
    private final CheckRows rows;
    private final CheckPublisher publisher;
    private final Consumer<String> log;

    /**
     * @param rows where final checks of runs go ({@link CheckRows#NONE} for runs no queue holds)
     * @param log where a publisher's failure is said
     */
    public CheckRecorder(CheckStore files, CheckRows rows, CheckPublisher publisher, Consumer<String> log) {
        this.files = Objects.requireNonNull(files, "files");
        this.rows = Objects.requireNonNull(rows, "rows");
        this.publisher = Objects.requireNonNull(publisher, "publisher");
        this.log = Objects.requireNonNull(log, "log");
    }

    /** A recorder for one-shot runs: check files only. */
    public static CheckRecorder filesOnly(CheckStore files) {
        return new CheckRecorder(files, CheckRows.NONE, CheckPublisher.NONE, line -> {});
    }

    /** Where check files, logs and outputs are. */
    public CheckStore files() {
        return files;
    }

    /** A run's check as it starts: the file, then the publisher, best effort (see the class comment). */
    public void running(Check check) throws IOException {
        files.save(check);
        try {
            publisher.started(check);
        } catch (IOException | RuntimeException e) {
            log.accept("could not publish check " + check.id() + ": " + OneLine.of(e));
        }
    }

    /**
     * A running check after one of its steps ended: the file, then the publisher's {@link
     * CheckPublisher#started}, best effort, never failing the run (a check file that cannot be
     * written now is written at the end).
     */
    public void progress(Check check) {
        try {
            files.save(check);
        } catch (IOException | RuntimeException e) {
            log.accept("could not record the progress of check " + check.id() + ": " + OneLine.of(e));
        }
        try {
            publisher.started(check);
        } catch (IOException | RuntimeException e) {
            log.accept("could not publish check " + check.id() + ": " + OneLine.of(e));
        }
    }

    /** A run's final check: file, row, publisher. */
    public void finished(Check check) throws IOException {
        record(check, c -> {
            rows.finished(c);
            return true;
        });
    }

    /**
     * A final check whose row is written by {@code row} (a waiting run cancelled, a rejection that
     * no run made): file, row, then the publisher unless the row took no change. False then.
     */
    public boolean record(Check check, RowWrite row) throws IOException {
        files.save(check);
        if (!row.write(check)) {
            return false;
        }
        try {
            publisher.publish(check);
        } catch (IOException | RuntimeException e) {
            log.accept("could not publish check " + check.id() + ": " + OneLine.of(e));
        }
        return true;
    }
}
