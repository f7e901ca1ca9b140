package dev.knotless.node.cni;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CNI contract from the runtime's side, against small shell scripts in place of plugins: the real
 * plugins cannot be made to hang, print garbage or fail with a chosen code on demand, and CniNetworkIT
 * covers them working. Each script stands for exactly one such fault.
 */
class CniPluginsTest {

    @TempDir
    Path dir;

    Path plugin(String name, String body) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    @Test
    void passesTheContractsEnvironmentAndStdinAndNothingElse() throws Exception {
        plugin("probe", "env | sort > " + dir.resolve("env") + "; cat > " + dir.resolve("stdin")
                + "; echo '{\"cniVersion\":\"1.0.0\",\"ips\":[]}'");
        CniPlugins plugins = new CniPlugins(dir, Duration.ofSeconds(10));
        byte[] config = "{\"name\":\"n\"}".getBytes(StandardCharsets.UTF_8);
        var result = plugins.run("probe", CniPlugins.Command.ADD, "c1", Optional.of(Path.of("/proc/1/ns/net")), config);
        assertThat(result).hasValueSatisfying(r -> assertThat(r.path("cniVersion").asText()).isEqualTo("1.0.0"));
        assertThat(Files.readAllBytes(dir.resolve("stdin"))).isEqualTo(config);
        assertThat(Files.readAllLines(dir.resolve("env")))
                .filteredOn(l -> !l.startsWith("PWD=") && !l.startsWith("SHLVL=") && !l.startsWith("_="))
                .containsExactly("CNI_COMMAND=ADD", "CNI_CONTAINERID=c1", "CNI_IFNAME=eth0", "CNI_NETNS=/proc/1/ns/net",
                        "CNI_PATH=" + dir.toAbsolutePath(), "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");

        plugins.run("probe", CniPlugins.Command.DEL, "c1", Optional.empty(), config);
        assertThat(Files.readAllLines(dir.resolve("env"))).contains("CNI_COMMAND=DEL").noneMatch(l -> l.startsWith("CNI_NETNS="));
    }

    @Test
    void aPluginThatHangsIsKilledWithWhatItStarted() throws Exception {
        // The plugin's child would hold its output open for 10 minutes: a run that waited for it (or
        // for the plugin) would not return within the 60 s below.
        plugin("hang", "sleep 600 & echo $! > " + dir.resolve("child") + "; echo $$ > " + dir.resolve("self") + "; wait");
        CniPlugins plugins = new CniPlugins(dir, Duration.ofMillis(700));
        long start = System.nanoTime();
        assertThatThrownBy(() -> plugins.run("hang", CniPlugins.Command.ADD, "c1", Optional.of(Path.of("/x")), new byte[0]))
                .isInstanceOf(NetworkException.class)
                .hasMessage("CNI plugin hang ADD for container c1 did not finish within 700 ms; killed");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("killed, not waited for").isLessThan(Duration.ofSeconds(60));
        for (String pidFile : List.of("self", "child")) {
            long pid = Long.parseLong(Files.readString(dir.resolve(pidFile)).strip());
            // SIGKILL is sent before run returns; the kernel and the reaper take a moment to finish it
            // (30 s only catch one that was never killed).
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            while (alive && System.nanoTime() - deadline < 0) {
                Thread.sleep(50);
                alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            }
            assertThat(alive).as(pidFile + " (pid " + pid + ") still alive 30 s after the plugin was killed").isFalse();
        }
    }

    @Test
    void theSpecsErrorObjectBecomesOneLine() throws Exception {
        plugin("fails", "cat > /dev/null; printf '{\"cniVersion\":\"1.0.0\",\"code\":7,\"msg\":\"bad subnet\",\"details\":\"10.0.0.1/24\\\\nline two\"}'; exit 1");
        CniPlugins plugins = new CniPlugins(dir, Duration.ofSeconds(10));
        assertThatThrownBy(() -> plugins.run("fails", CniPlugins.Command.ADD, "c1", Optional.of(Path.of("/x")), new byte[0]))
                .isInstanceOf(NetworkException.class)
                .hasMessage("CNI plugin fails ADD for container c1 failed: CNI error 7 (invalid network config): bad subnet; 10.0.0.1/24 line two");
    }

    @Test
    void withoutAnErrorObjectTheLastLineOfStderrIsTheReason() throws Exception {
        plugin("crash", "echo 'panic: something' >&2; echo 'goroutine 1' >&2; exit 2");
        CniPlugins plugins = new CniPlugins(dir, Duration.ofSeconds(10));
        assertThatThrownBy(() -> plugins.run("crash", CniPlugins.Command.DEL, "c1", Optional.empty(), new byte[0]))
                .hasMessage("CNI plugin crash DEL for container c1 failed: exit status 2: goroutine 1");
        plugin("silent", "exit 3");
        assertThatThrownBy(() -> plugins.run("silent", CniPlugins.Command.DEL, "c1", Optional.empty(), new byte[0]))
                .hasMessage("CNI plugin silent DEL for container c1 failed: exit status 3 and no error object");
    }

    @Test
    void anAddThatPrintsNoResultIsRefused() throws Exception {
        plugin("garbage", "echo 'not json'");
        CniPlugins plugins = new CniPlugins(dir, Duration.ofSeconds(10));
        assertThatThrownBy(() -> plugins.run("garbage", CniPlugins.Command.ADD, "c1", Optional.of(Path.of("/x")), new byte[0]))
                .hasMessage("CNI plugin garbage ADD for container c1: the plugin printed something that is not a CNI result: not json");
    }

    @Test
    void aMissingOrNotExecutablePluginIsNamed() throws Exception {
        CniPlugins plugins = new CniPlugins(dir, Duration.ofSeconds(10));
        Files.writeString(dir.resolve("bridge"), "not executable");
        assertThatThrownBy(() -> plugins.require(List.of("bridge")))
                .hasMessage("CNI plugin bridge is missing: no executable " + dir.resolve("bridge"));
        assertThatThrownBy(() -> plugins.require(List.of("host-local")))
                .hasMessage("CNI plugin host-local is missing: no executable " + dir.resolve("host-local"));
    }
}
