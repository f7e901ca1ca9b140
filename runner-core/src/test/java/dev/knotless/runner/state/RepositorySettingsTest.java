package dev.knotless.runner.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RepositoryVariablesTest {

    @TempDir Path state;

    @Test
    void eachRepositoryHasItsOwnVariablesAndAChangeReachesEveryStoreOnTheDirectory() throws Exception {
        RepositoryVariables writer = RepositoryVariables.in(state);
        RepositoryVariables reader = RepositoryVariables.in(state);
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
        try (var files = Files.list(state.resolve(RepositoryVariables.DIRECTORY))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".json")).toList()) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            }
        }
    }

    @Test
    void githubsLimitsHoldAndARefusedChangeKeepsWhatWasThere() throws Exception {
        RepositoryVariables vars = RepositoryVariables.in(state);
        vars.put("acme/app", "KEEP", "kept");
        assertThatThrownBy(() -> vars.put("acme/app", "GITHUB_SHA", "x")).hasMessageContaining("GITHUB_");
        assertThatThrownBy(() -> vars.put("acme/app", "a-b", "x")).hasMessageContaining("not a name");
        assertThatThrownBy(() -> vars.put("acme/app", "BIG", "x".repeat(RepositoryVariables.MAX_VALUE_BYTES + 1)))
                .hasMessageContaining("48 KiB");
        for (int i = 1; i < RepositoryVariables.MAX_VARIABLES; i++) {
            vars.put("acme/app", "V" + i, "v");
        }
        assertThatThrownBy(() -> vars.put("acme/app", "ONE_MORE", "x")).hasMessageContaining("500 variables already");
        vars.put("acme/app", "KEEP", "changed"); // one already there may still change
        assertThat(vars.of("acme/app")).hasSize(RepositoryVariables.MAX_VARIABLES).containsEntry("KEEP", "changed");
    }

    @Test
    void aFileOfAnotherRepositoryIsNotReadAsThisOnes() throws Exception {
        RepositoryVariables vars = RepositoryVariables.in(state);
        vars.put("acme/app", "A", "1");
        Path file;
        try (var files = Files.list(state.resolve(RepositoryVariables.DIRECTORY))) {
            file = files.filter(f -> f.toString().endsWith(".json")).findFirst().orElseThrow();
        }
        Files.writeString(file, Files.readString(file).replace("acme/app", "acme/evil"));
        assertThatThrownBy(() -> vars.of("acme/app")).hasMessageContaining("is not acme/app's variables");
    }
}
