package dev.knotless.runner.run;

import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunLayout;
import dev.knotless.tar.Bounded;
import dev.knotless.tar.Printable;
import dev.knotless.tar.TarExtractor;
import dev.knotless.time.Deadline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Takes {@code /outputs} out of the run into the check's output directory, refusing unsafe
 * archives ({@link RunLimits#outputArchive()}), and records each regular file with the media type
 * its bytes show ({@link OutputListing}: links never followed, at most
 * {@link RunLimits#outputsListed()} outputs). Runs after a failing step
 * too (a failure's screenshots matter most), but not after a cancel.
 */
final class CollectOutputs implements Phase {

    @Override
    public boolean runsAfterFailure() {
        return true;
    }

    @Override
    public void run(RunState state) {
        long limit = state.limits.outputBytes();
        Deadline deadline = state.deadlineIn(state.limits.killGrace().multipliedBy(12));
        TarExtractor extractor = TarExtractor.into(state.outputDir, state.limits.outputArchive());
        try {
            state.session.download(RunLayout.OUTPUTS,
                    in -> extractor.readFrom(Bounded.input(in, limit + (limit / 8) + (1 << 20), deadline, "outputs")),
                    state.runSignal);
            OutputListing listing = OutputListing.of(state.outputDir, state.limits.outputsListed());
            state.outputs.addAll(OutputNames.masked(state.outputDir, listing.outputs(), state.masking));
            if (!state.outputs.isEmpty()) {
                state.log.notice("outputs: " + String.join(", ", state.outputs.stream()
                        .map(o -> Printable.name(o.name()) + " (" + o.mediaType() + ", " + Bounded.bytes(o.bytes()) + ")").toList()));
            }
            listing.notices().forEach(state.log::notice);
        } catch (ExecutorException | IOException e) {
            if (StateFull.causedBy(e)) {
                dropPartial(state, e);
                state.fail(new Verdict(CheckStatus.ERROR, StateFull.REASON));
            } else if (e instanceof ExecutorException x) {
                refused(state, x);
            } else {
                state.fail(new Verdict(CheckStatus.ERROR, "reading outputs failed: " + Printable.name(String.valueOf(e.getMessage()))));
            }
        }
    }

    private static void refused(RunState state, ExecutorException e) {
        if (e.failure().kind() == Failure.Kind.STOPPED) {
            return;
        }
        String why = "outputs refused: " + e.failure().reason();
        state.fail(new Verdict(e.failure().kind() == Failure.Kind.LIMIT ? CheckStatus.FAILURE : CheckStatus.ERROR, why));
    }

    /** Outputs a full state directory cut short are not kept, not even the whole ones: a check lists a complete set. */
    private static void dropPartial(RunState state, Exception why) {
        state.outputs.clear();
        try (Stream<Path> files = Files.exists(state.outputDir) ? Files.walk(state.outputDir) : Stream.empty()) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            why.addSuppressed(e);
        }
    }
}
