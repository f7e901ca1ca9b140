package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.Annotation;
import dev.knotless.checks.Check;
import dev.knotless.checks.CheckStatus;
import dev.knotless.checks.Event;
import dev.knotless.checks.StepResult;
import dev.knotless.executor.Executor;
import dev.knotless.executor.Trust;
import dev.knotless.plan.Computed;
import dev.knotless.plan.Step;
import dev.knotless.plan.StepFiles;
import dev.knotless.plan.Workflow;
import dev.knotless.plan.Workspace;
import dev.knotless.plan.dialects.Dialects;
import dev.knotless.runner.run.record.RunListener;
import dev.knotless.runner.run.request.Cancellation;
import dev.knotless.runner.run.request.RunLimits;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.secrets.SecretStore;
import dev.knotless.tar.TarStreams;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * One run whose steps hand values back as GitHub Actions' do, on a real executor: files named in
 * each step's environment (an output, a variable in heredoc form, a directory for {@code PATH}, a
 * summary), workflow commands on its output (a mask, an error annotation, a group), a later step
 * that reads them, and a 2 GiB sparse output file refused from its header; in a workspace that is
 * not {@code /work}. The step protocol goes through the session's run and download only, so every
 * executor must give the same check. No dialect sets {@link StepFiles} yet (the GitHub reader
 * will), so the plan is made here as that front-end will make it.
 */
final class StepProtocolRun {

    static final String DYNAMIC = "dyn-secret-4821";
    static final Workspace WORKSPACE = new Workspace("/home/runner/work/app/app", "/home/runner");
    static final StepFiles GITHUB = new StepFiles(Map.of(
            StepFiles.Purpose.OUTPUTS, "GITHUB_OUTPUT",
            StepFiles.Purpose.ENVIRONMENT, "GITHUB_ENV",
            StepFiles.Purpose.PATH, "GITHUB_PATH",
            StepFiles.Purpose.SUMMARY, "GITHUB_STEP_SUMMARY",
            StepFiles.Purpose.STATE, "GITHUB_STATE"), true);

    private StepProtocolRun() {}

    /** The run's request, for {@code runnerId}'s run in {@code image}. */
    static RunRequest request(String runnerId, String image) throws Exception {
        Workflow ours = Dialects.standard().parse(".knotless/workflows/protocol.yaml", """
                image: %s
                steps:
                  - name: hand back
                    run: |
                      echo "::add-mask::%2$s"
                      echo "value %2$s"
                      echo "where=$(pwd) files=$(dirname "$GITHUB_OUTPUT")"
                      echo "version=1.2.3" >> "$GITHUB_OUTPUT"
                      printf 'MULTI<<EOF\\nline one\\nline two\\nEOF\\nFROM_ONE=yes\\n' >> "$GITHUB_ENV"
                      mkdir -p /opt/tools && printf '#!/bin/sh\\necho tool ran\\n' > /opt/tools/mytool && chmod +x /opt/tools/mytool
                      echo /opt/tools >> "$GITHUB_PATH"
                      echo "# Summary %2$s" >> "$GITHUB_STEP_SUMMARY"
                      echo "::group::Build"
                      echo "::error file=/home/runner/work/app/app/src/a.c,line=3::it broke"
                      echo "::endgroup::"
                  - name: reads
                    run: |
                      echo "from_one=$FROM_ONE multi=$MULTI"
                      mytool
                      echo "version=$VERSION later %2$s"
                      test ! -s "$GITHUB_OUTPUT" && test ! -e /tmp/.knotless-files/1 && echo "its own files are new"
                  - name: too big
                    continue-on-error: true
                    run: truncate -s 2G "$GITHUB_OUTPUT"
                  - name: after
                    run: echo after ran
                """.formatted(image, DYNAMIC));
        List<Step> steps = new ArrayList<>(ours.steps());
        Step reads = steps.get(1);
        steps.set(1, new Step(reads.name(), reads.run(), reads.timeout(), reads.secrets(), reads.env(), reads.workingDirectory(),
                reads.retry(), reads.continueOnError(), reads.condition(), reads.shell(),
                Map.of("VERSION", new Computed.StepOutput(1, "version")), reads.runtime()));
        Workflow handingBack = new Workflow(ours.name(), ours.file(), ours.on(), ours.runners(), ours.image(), ours.timeout(),
                ours.resources(), ours.variables(), ours.cache(), steps, ours.reports(), ours.services(), ours.needs(),
                ours.artifacts(), ours.cell(), WORKSPACE, GITHUB, ours.prePost());
        return new RunRequest("protocol-" + System.nanoTime(), runnerId, "acme/app", "0123456789abcdef0123456789abcdef01234567",
                "refs/heads/main", "refs/heads/main", Event.PUSH, Trust.TRUSTED, handingBack, StepProtocolRun::checkout, Map.of(),
                image, false);
    }

    /** Runs {@code request} on {@code executor}, its state in {@code stateDir}. */
    static Check run(Executor executor, Path stateDir, RunRequest request) {
        return RunWiring.oneShot(executor, stateDir, SecretStore.inMemory(), RunListener.NONE, RunLimits.DEFAULT, 1L << 30,
                Clock.systemUTC(), dev.knotless.runner.run.runtime.Runtimes.NONE,
                dev.knotless.runner.run.environment.ImagePins.NONE).execute(request, new Cancellation());
    }

    /** Asserts what {@link #request}'s run handed back, and what its check and log show. */
    static void handedValuesBack(Check check) throws Exception {
        String log = Files.readString(Path.of(check.log()));
        assertThat(check.status()).as(log).isEqualTo(CheckStatus.SUCCESS);
        StepResult one = check.steps().get(0);
        assertThat(one.outputs()).containsExactly(Map.entry("version", "1.2.3"));
        assertThat(one.annotations()).containsExactly(
                new Annotation(Annotation.Kind.ERROR, "it broke", "src/a.c", 3, null, null, null, null));
        assertThat(Files.readString(Path.of(check.summary()))).isEqualTo("# Summary ***\n");
        assertThat(log).contains("::add-mask::***\nvalue ***\n")
                .contains("where=/home/runner/work/app/app files=/tmp/.knotless-files/1\n")
                .contains("::group::Build\n")
                .contains("from_one=yes multi=line one\nline two\n")
                .contains("tool ran\n")
                .contains("version=1.2.3 later ***\n")
                .contains("its own files are new\n")
                .contains("after ran\n")
                .doesNotContain(DYNAMIC);
        StepResult big = check.steps().get(2);
        assertThat(big.continuedOnError()).isTrue();
        assertThat(big.reason()).startsWith("handed back files that were refused: ")
                .endsWith("GITHUB_OUTPUT is 2 GiB; a step hands back at most 1 MiB through one file");
    }

    /** A one-file checkout, as a commit's tree comes. */
    private static void checkout(java.io.OutputStream out) throws java.io.IOException {
        TarArchiveOutputStream tar = TarStreams.newOutput(out);
        byte[] hello = "hello\n".getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry entry = new TarArchiveEntry("hello.txt");
        entry.setSize(hello.length);
        entry.setMode(0100644);
        tar.putArchiveEntry(entry);
        tar.write(hello);
        tar.closeArchiveEntry();
        tar.finish();
    }
}
