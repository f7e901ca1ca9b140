package dev.knotless.runner.run.output;

import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunLayout;
import dev.knotless.runner.run.phase.Findings;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.runner.run.phase.VerdictSoFar;
import dev.knotless.runner.run.record.RunMasking;
import dev.knotless.runner.run.record.StateFull;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.tar.Bounded;
import dev.knotless.tar.Printable;
import dev.knotless.tar.TarExtractor;
import dev.knotless.time.Deadline;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import dev.knotless.checks.Output;
import java.util.stream.Stream;

/**
 * Takes {@code /outputs} out of the run into the check's output directory, refusing unsafe
 * archives ({@link RunLimits#outputArchive()}), and records each regular file with the media type
 * its bytes show ({@link OutputListing}: links never followed, at most
 * {@link RunLimits#outputsListed()} outputs). Runs after a failing step
 * too (a failure's screenshots matter most), but not after a cancel.
 */
public final class CollectOutputs implements Phase {

    private final Path outputDir;
    private final RunLimits limits;
    private final RunMasking masking;
    private List<Output> found = List.of();

    /**
     * @param outputDir the check's output directory
     * @param masking the run's masking: an output named after a granted value is moved to its masked name
     */
    public CollectOutputs(Path outputDir, RunLimits limits, RunMasking masking) {
        this.outputDir = outputDir;
        this.limits = limits;
        this.masking = masking;
    }

    @Override
    public boolean runsAfterFailure() {
        return true;
    }

    @Override
    public Findings addTo(Findings findings) {
        return findings.withOutputs(found);
    }

    @Override
    public void run(RunContext run) {
        long limit = limits.outputBytes();
        Deadline deadline = run.deadlineIn(limits.killGrace().multipliedBy(12));
        TarExtractor extractor = TarExtractor.into(outputDir, limits.outputArchive());
        try {
            run.session().download(RunLayout.OUTPUTS,
                    in -> extractor.readFrom(Bounded.input(in, limit + (limit / 8) + (1 << 20), deadline, "outputs")),
                    run.signal());
            OutputListing listing = OutputListing.of(outputDir, limits.outputsListed());
            found = OutputNames.masked(outputDir, listing.outputs(), masking);
            if (!found.isEmpty()) {
                run.log().notice("outputs: " + String.join(", ", found.stream()
                        .map(o -> Printable.name(o.name()) + " (" + o.mediaType() + ", " + Bounded.bytes(o.bytes()) + ")").toList()));
            }
            listing.notices().forEach(run.log()::notice);
        } catch (ExecutorException | IOException e) {
            dropPartial(e);
            if (StateFull.causedBy(e)) {
                run.verdict().fail(new Verdict(CheckStatus.ERROR, StateFull.REASON));
            } else if (e instanceof ExecutorException x) {
                refused(run.verdict(), x);
            } else {
                run.verdict().fail(new Verdict(CheckStatus.ERROR, "reading outputs failed: " + Printable.name(String.valueOf(e.getMessage()))));
            }
        }
    }

    private static void refused(VerdictSoFar verdict, ExecutorException e) {
        if (e.failure().kind() == Failure.Kind.STOPPED) {
            return;
        }
        String why = "outputs refused: " + e.failure().reason();
        verdict.fail(new Verdict(e.failure().kind() == Failure.Kind.LIMIT ? CheckStatus.FAILURE : CheckStatus.ERROR, why));
    }

    /**
     * Outputs a refusal, a stop or a full state directory cut short are not kept, not even the whole
     * ones written before it: a check lists a complete set or none, and a refused archive leaves
     * nothing of itself (a dangling link, half a tree) in the state directory.
     */
    private void dropPartial(Exception why) {
        found = List.of();
        try (Stream<Path> files = Files.exists(outputDir) ? Files.walk(outputDir) : Stream.empty()) {
            for (Path p : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            why.addSuppressed(e);
        }
    }
}
