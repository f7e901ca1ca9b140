package dev.knotless.runner.run.step;

import dev.knotless.checks.CheckStatus;
import dev.knotless.executor.ExecutorException;
import dev.knotless.executor.Failure;
import dev.knotless.executor.RunLayout;
import dev.knotless.executor.Session;
import dev.knotless.executor.StopSignal;
import dev.knotless.plan.Step;
import dev.knotless.plan.Workflow;
import dev.knotless.runner.run.phase.Phase;
import dev.knotless.runner.run.phase.RunContext;
import dev.knotless.runner.run.phase.Verdict;
import dev.knotless.tar.TarStreams;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Writes each step's script to {@code /steps/<n>}, as its shell has it written; scripts hold no
 * variable values. A script the run works out as its step starts ({@code Deferred}: it holds what
 * the steps before handed back) is written then instead ({@link #upload}). A plan asking for more
 * than this runner carries out is refused here, before any step ({@link NotYetCarriedOut}).
 */
public record UploadSteps(Workflow workflow) implements Phase {

    @Override
    public void run(RunContext run) {
        Optional<String> beyond = NotYetCarriedOut.in(workflow);
        if (beyond.isPresent()) {
            run.verdict().fail(new Verdict(CheckStatus.ERROR, beyond.get()));
            return;
        }
        Map<Integer, Step> known = new LinkedHashMap<>();
        List<Step> steps = workflow.steps();
        for (int i = 0; i < steps.size(); i++) {
            if (steps.get(i).deferred().run() == null) {
                known.put(i + 1, steps.get(i));
            }
        }
        try {
            upload(run.session(), known, run.signal());
        } catch (ExecutorException e) {
            if (e.failure().kind() != Failure.Kind.STOPPED) {
                run.verdict().fail(new Verdict(CheckStatus.ERROR, "uploading step scripts failed: " + e.failure().reason()));
            }
        }
    }

    /** Writes the scripts of {@code steps}, by number, into {@code /steps}, beside any there. */
    static void upload(Session session, Map<Integer, Step> steps, StopSignal signal) throws ExecutorException {
        session.upload(RunLayout.STEPS, out -> {
            TarArchiveOutputStream tar = TarStreams.newOutput(out);
            for (Map.Entry<Integer, Step> step : steps.entrySet()) {
                byte[] script = step.getValue().shell().file(step.getValue().run()).getBytes(StandardCharsets.UTF_8);
                TarArchiveEntry entry = new TarArchiveEntry(String.valueOf(step.getKey()));
                entry.setMode(0100755);
                entry.setSize(script.length);
                tar.putArchiveEntry(entry);
                tar.write(script);
                tar.closeArchiveEntry();
            }
            tar.finish();
        }, signal);
    }
}
