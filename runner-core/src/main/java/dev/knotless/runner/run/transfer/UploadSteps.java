package dev.knotless.runner.run.transfer;

import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunLayout;
import dev.knotless.plan.Step;
import dev.knotless.plan.Workflow;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.tar.TarStreams;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Writes each step's script to {@code /steps/<n>}, as its shell has it written; scripts hold no
 * variable values. A plan asking for more than this runner carries out is refused here, before
 * any step ({@link NotYetCarriedOut}).
 */
public record UploadSteps(Workflow workflow) implements Phase {

    @Override
    public void run(RunContext run) {
        Optional<String> beyond = NotYetCarriedOut.in(workflow);
        if (beyond.isPresent()) {
            run.verdict().fail(new Verdict(CheckStatus.ERROR, beyond.get()));
            return;
        }
        List<Step> steps = workflow.steps();
        try {
            run.session().upload(RunLayout.STEPS, out -> {
                TarArchiveOutputStream tar = TarStreams.newOutput(out);
                for (int i = 0; i < steps.size(); i++) {
                    Step step = steps.get(i);
                    byte[] script = step.shell().file(step.run()).getBytes(StandardCharsets.UTF_8);
                    TarArchiveEntry entry = new TarArchiveEntry(String.valueOf(i + 1));
                    entry.setMode(0100755);
                    entry.setSize(script.length);
                    tar.putArchiveEntry(entry);
                    tar.write(script);
                    tar.closeArchiveEntry();
                }
                tar.finish();
            }, run.signal());
        } catch (ExecutorException e) {
            if (e.failure().kind() != Failure.Kind.STOPPED) {
                run.verdict().fail(new Verdict(CheckStatus.ERROR, "uploading step scripts failed: " + e.failure().reason()));
            }
        }
    }
}
