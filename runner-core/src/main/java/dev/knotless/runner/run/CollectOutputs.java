package dev.knotless.runner.run;

import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.MediaTypes;
import dev.knotless.checks.Output;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunLayout;
import dev.knotless.tar.Bounded;
import dev.knotless.tar.TarExtractor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

/**
 * Takes {@code /outputs} out of the run into the check's output directory, refusing unsafe
 * archives, and records each file with the media type its bytes show. Runs after a failing step
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
        Instant deadline = state.clock.instant().plus(state.limits.killGrace().multipliedBy(12));
        TarExtractor extractor = TarExtractor.into(state.outputDir, limit);
        try {
            state.session.download(RunLayout.OUTPUTS,
                    in -> extractor.readFrom(Bounded.input(in, limit + (limit / 8) + (1 << 20), deadline, "outputs")),
                    state.runSignal);
            state.outputs.addAll(OutputNames.masked(state.outputDir, list(state.outputDir), state.masking));
            if (!state.outputs.isEmpty()) {
                state.log.notice("outputs: " + String.join(", ", state.outputs.stream()
                        .map(o -> o.name() + " (" + o.mediaType() + ", " + Bounded.bytes(o.bytes()) + ")").toList()));
            }
        } catch (ExecutorException e) {
            if (e.failure().kind() == Failure.Kind.STOPPED) {
                return;
            }
            String why = "outputs refused: " + e.failure().reason();
            state.fail(new Verdict(e.failure().kind() == Failure.Kind.LIMIT ? CheckStatus.FAILURE : CheckStatus.ERROR, why));
        } catch (IOException e) {
            state.fail(new Verdict(CheckStatus.ERROR, "reading outputs failed: " + e.getMessage()));
        }
    }

    static List<Output> list(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).sorted().map(f -> describe(dir, f)).toList();
        }
    }

    private static Output describe(Path dir, Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(MediaTypes.SNIFF_BYTES);
            return new Output(dir.relativize(file).toString(), MediaTypes.sniff(head, head.length),
                    Files.size(file), file.toAbsolutePath().toString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
