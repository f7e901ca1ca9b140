package dev.knotless.runner.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RepositorySettingsTest {

    @TempDir Path state;

    @Test
    void eachRepositoryHasItsOwnVariablesAndAChangeReachesEveryStoreOnTheDirectory() throws Exception {
        RepositorySettings writer = RepositorySettings.in(state);
        RepositorySettings reader = RepositorySettings.in(state);
        assertThat(reader.of("acme/app")).isEmpty();
        assertThat(writer.put("acme/app", "region", "eu")).isEqualTo("REGION");
        writer.put("acme/other", "REGION", "us");
        assertThat(reader.of("acme/app")).containsExactly(java.util.Map.entry("REGION", "eu"));
        assertThat(reader.of("acme/other")).containsExactly(java.util.Map.entry("REGION", "us"));
        writer.put("acme/app", "Region", "ap");
        assertThat(reader.of("acme/app")).containsExactly(java.util.Map.entry("REGION", "ap"));
        assertThat(writer.remove("acme/app", "region")).isTrue();
        assertThat(writer.remove("acme/app", "region")).isFalse();
        assertThat(reader.of("acme/app")).isEmpty();
        try (var files = Files.list(state.resolve(RepositorySettings.DIRECTORY))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            }
        }
    }

    @Test
    void githubsLimitsHoldAndARefusedChangeKeepsWhatWasThere() throws Exception {
        RepositorySettings vars = RepositorySettings.in(state);
        vars.put("acme/app", "KEEP", "kept");
        assertThatThrownBy(() -> vars.put("acme/app", "GITHUB_SHA", "x")).hasMessageContaining("GITHUB_");
        assertThatThrownBy(() -> vars.put("acme/app", "a-b", "x")).hasMessageContaining("not a name");
        assertThatThrownBy(() -> vars.put("acme/app", "BIG", "x".repeat(RepositorySettings.MAX_VALUE_BYTES + 1)))
                .hasMessageContaining("48 KiB");
        for (int i = 1; i < RepositorySettings.MAX_VARIABLES; i++) {
            vars.put("acme/app", "V" + i, "v");
        }
        assertThatThrownBy(() -> vars.put("acme/app", "ONE_MORE", "x")).hasMessageContaining("500 variables already");
        vars.put("acme/app", "KEEP", "changed"); // one already there may still change
        assertThat(vars.of("acme/app")).hasSize(RepositorySettings.MAX_VARIABLES).containsEntry("KEEP", "changed");
    }

    @Test
    void aFileOfAnotherRepositoryIsNotReadAsThisOnes() throws Exception {
        RepositorySettings vars = RepositorySettings.in(state);
        vars.put("acme/app", "A", "1");
        Path file;
        try (var files = Files.list(state.resolve(RepositorySettings.DIRECTORY))) {
            file = files.filter(f -> f.toString().endsWith(".json")).findFirst().orElseThrow();
        }
        Files.writeString(file, Files.readString(file).replace("acme/app", "acme/evil"));
        assertThatThrownBy(() -> vars.of("acme/app")).hasMessageContaining("is not acme/app's settings");
    }

    @Test
    void anEnvironmentIsDeclaredWithItsBranchesAndHasVariablesOfItsOwn() throws Exception {
        RepositorySettings settings = RepositorySettings.in(state);
        settings.put("acme/app", "REGION", "eu");
        assertThatThrownBy(() -> settings.put("acme/app", "staging", "REGION", "x"))
                .hasMessageContaining("environment staging is not declared for acme/app");
        settings.declare("acme/app", "staging", java.util.List.of("main", "release/*"));
        settings.put("acme/app", "staging", "region", "us");
        assertThat(settings.of("acme/app")).containsExactly(java.util.Map.entry("REGION", "eu"));
        assertThat(settings.of("acme/app", "staging")).containsExactly(java.util.Map.entry("REGION", "us"));
        settings.declare("acme/app", "staging", java.util.List.of()); // declared again: every branch, variables kept
        assertThat(settings.environments("acme/app").get("staging").branches()).isEmpty();
        assertThat(settings.environments("acme/app").get("staging").variables()).containsEntry("REGION", "us");
        assertThatThrownBy(() -> settings.declare("acme/app", "bad/name", java.util.List.of()))
                .hasMessageContaining("environment name 'bad/name'");
        assertThat(settings.undeclare("acme/app", "staging")).isTrue();
        assertThat(settings.undeclare("acme/app", "staging")).isFalse();
        assertThat(settings.environments("acme/app")).isEmpty();
    }
}
