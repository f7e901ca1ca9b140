package dev.knotless.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The values the plan carries for dialects to come, with what ours uses. */
class PlanValuesTest {

    @Test
    void oursIsWorkWithTheImagesHome() {
        assertThat(Workspace.DEFAULT.directory()).isEqualTo("/work");
        assertThat(Workspace.DEFAULT.home()).isNull();
    }

    @Test
    void aWorkspaceIsAbsoluteAndPlain() {
        assertThat(new Workspace("//home/runner/./work/", "/home/runner/").directory()).isEqualTo("/home/runner/work");
        assertThat(new Workspace("/w", "/home/runner/").home()).isEqualTo("/home/runner");
        assertThatThrownBy(() -> new Workspace("work", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Workspace("/work/../etc", null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Workspace("/work", "home")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void oursRunsTheScriptAsWrittenWithShMinusE() {
        assertThat(Shell.POSIX.command("/steps/1")).containsExactly("/bin/sh", "-e", "/steps/1");
        assertThat(Shell.POSIX.file("make\n")).isEqualTo("make\n");
    }

    @Test
    void aShellPutsThePathWhereItSaysAndWrapsTheScript() {
        Shell pwsh = new Shell(List.of("pwsh", "-command", ". '" + Shell.SCRIPT + "'"), "$ErrorActionPreference = 'stop'\n",
                "\nif ((Test-Path -LiteralPath variable:\\LASTEXITCODE)) { exit $LASTEXITCODE }\n");
        assertThat(pwsh.command("/steps/2")).containsExactly("pwsh", "-command", ". '/steps/2'");
        assertThat(pwsh.file("Write-Host hi")).startsWith("$ErrorActionPreference = 'stop'\nWrite-Host hi\nif (");
        assertThatThrownBy(() -> new Shell(List.of("bash", "-e"), "", "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{0}");
    }

    @Test
    void computedValuesAreTypedAndStepsCountFromOne() {
        Computed key = new Computed.Joined(List.of(new Computed.Text("npm-"),
                new Computed.FilesHash(List.of("package-lock.json"))));
        assertThat(key).isEqualTo(new Computed.Joined(List.of(new Computed.Text("npm-"),
                new Computed.FilesHash(List.of("package-lock.json")))));
        assertThat(new Computed.StepOutput(1, "version").step()).isEqualTo(1);
        assertThatThrownBy(() -> new Computed.StepOutput(0, "version")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void oursHandsNothingBackAndHasNothingBeforeOrAfterItsSteps() {
        assertThat(StepFiles.NONE.variables()).isEmpty();
        assertThat(StepFiles.NONE.commands()).isFalse();
        assertThat(StepFiles.NONE.any()).isFalse();
        StepFiles files = new StepFiles(Map.of(StepFiles.Purpose.OUTPUTS, "GITHUB_OUTPUT"));
        assertThat(files.variables()).containsEntry(StepFiles.Purpose.OUTPUTS, "GITHUB_OUTPUT");
        assertThat(files.commands()).as("files alone read no command").isFalse();
        assertThat(files.any()).isTrue();
        assertThat(new StepFiles(Map.of(), true).any()).as("commands alone hand values back too").isTrue();
        assertThat(PrePost.NONE.isEmpty()).isTrue();
    }
}
