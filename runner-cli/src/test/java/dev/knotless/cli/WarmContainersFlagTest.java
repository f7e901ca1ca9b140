package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Warm environments are on by default only where they cost nothing: the daemon on docker. */
class WarmContainersFlagTest {

    @Test
    void theDaemonOnDockerKeepsWarmContainersUnlessToldNot() {
        assertThat(warm("daemon")).isTrue();
        assertThat(warm("daemon", "--executor", "docker")).isTrue();
        assertThat(warm("daemon", "--no-warm-containers")).isFalse();
        assertThat(warm("daemon", "--warm-containers")).isTrue();
    }

    @Test
    void aOneShotExecAndKubernetesDoNotUnlessAsked() {
        assertThat(warm("exec")).as("nothing follows a one-shot run").isFalse();
        assertThat(warm("exec", "--warm-containers")).isTrue();
        assertThat(warm("daemon", "--executor", "kubernetes")).as("a warm pod holds its requests").isFalse();
        assertThat(warm("daemon", "--executor", "kubernetes", "--warm-containers")).isTrue();
        assertThat(warm("daemon", "--executor", "node")).isFalse();
    }

    private static boolean warm(String command, String... flags) {
        String[] args = new String[flags.length + (command.equals("exec") ? 2 : 1)];
        args[0] = command;
        int at = 1;
        if (command.equals("exec")) {
            args[at++] = ".";
        }
        System.arraycopy(flags, 0, args, at, flags.length);
        Object user = Main.commandLine().parseArgs(args).subcommand().commandSpec().userObject();
        return user instanceof ExecCommand e ? e.runner.warmContainers(false) : ((DaemonCommand) user).runner.warmContainers(true);
    }
}
