package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

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
        return ParsedCommand.runner(command, flags).warmContainers(command.equals("daemon"));
    }
}
