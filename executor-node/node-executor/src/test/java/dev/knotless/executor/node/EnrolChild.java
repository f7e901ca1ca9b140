package dev.knotless.executor.node;

import dev.knotless.node.protocol.EnrolmentToken;
import dev.knotless.node.process.Enroller;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code node enroll} in a JVM of its own, so that a test can run it where a node runs (e.g. in the
 * node's network namespace, under {@code nsenter}): the CLI is not on this module's class path, the
 * {@link Enroller} it calls is.
 *
 * <p>Arguments: node id, runner host, runner port, token file, state directory (the key goes to
 * {@code STATE/node.key}, the keyset to {@code STATE/runner-keys}, as {@code node enroll} puts
 * them). Prints one line, {@code enrolled RUNNER_KEY_ID} (exit 0) or {@code refused REASON} (exit 3).
 */
public final class EnrolChild {

    public static void main(String[] args) throws Exception {
        Path state = Files.createDirectories(Path.of(args[4]));
        EnrolmentToken token = EnrolmentToken.parse(Files.readString(Path.of(args[3]), StandardCharsets.UTF_8).strip());
        Enroller.Outcome outcome = new Enroller(new Enroller.Config(args[0], args[1], Integer.parseInt(args[2]), token,
                state.resolve("node"), state.resolve("runner-keys"), Duration.ofSeconds(20))).enrol();
        switch (outcome) {
            case Enroller.Outcome.Enrolled e -> System.out.println("enrolled " + e.runnerKeyId());
            case Enroller.Outcome.Refused r -> {
                System.out.println("refused " + r.reason());
                System.exit(3);
            }
        }
    }
}
