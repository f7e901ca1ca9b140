package dev.knotless.runner.run.recovery;

import dev.knotless.runner.run.record.RunMasking;
import java.io.IOException;
import java.util.Optional;

/**
 * A run's journal as the run writes it: every progress it records masked, since the ended steps
 * it carries have names and reasons that can hold a granted value ({@link RunMasking}). The values
 * steps handed back (outputs, annotations) are left out: the journal is written every second while
 * a step prints, and a run whose steps hand values back is never followed after a restart
 * ({@code step.RunSteps}), so they would be written for nothing.
 */
public record MaskedJournal(RunJournal downstream, RunMasking masking) implements RunJournal {

    @Override
    public void record(String runId, RunProgress progress) throws IOException {
        downstream.record(runId, new RunProgress(progress.step(), progress.stdoutOffset(), progress.stderrOffset(),
                progress.logBytes(), masking.steps(progress.ended()).stream()
                        .map(r -> r.withHandedBack(java.util.Map.of(), java.util.List.of())).toList()));
    }

    @Override
    public Optional<RunProgress> read(String runId) throws IOException {
        return downstream.read(runId);
    }
}
