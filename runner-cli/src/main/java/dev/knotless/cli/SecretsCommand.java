package dev.knotless.cli;

import dev.knotless.secrets.Secret;
import dev.knotless.secrets.SecretStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "secrets", mixinStandardHelpOptions = true,
        description = "Manages a repository's secrets, encrypted at rest under the state dir.",
        subcommands = {SecretsCommand.Set.class, SecretsCommand.List.class, SecretsCommand.Remove.class})
final class SecretsCommand extends CommandGroup {

    @Command(name = "set", mixinStandardHelpOptions = true,
            description = {"Sets a secret; the value is read from standard input, never from the command line.",
                    "One trailing newline is dropped (as in `echo value | knotless-run secrets set …`)."})
    static final class Set implements Callable<Integer> {
        @Mixin RepositoryOption target;

        @Mixin EnvironmentOption environment;

        @Parameters(index = "0", paramLabel = "NAME", description = "A shell variable name.")
        String name;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            Secret.checkName(name);
            String value = readValue(System.in);
            SecretStore.encryptedFile(target.stateDir()).put(environment.secretScope(target), new Secret(name, value));
            spec.commandLine().getErr().println("secret " + name + " set for " + environment.where(target));
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists the names of a repository's secrets (never values).")
    static final class List implements Callable<Integer> {
        @Mixin RepositoryOption target;

        @Mixin EnvironmentOption environment;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            for (String name : SecretStore.encryptedFile(target.stateDir()).names(environment.secretScope(target))) {
                spec.commandLine().getOut().println(name);
            }
            spec.commandLine().getOut().flush();
            return ExitCodes.SUCCESS;
        }
    }

    @Command(name = "rm", mixinStandardHelpOptions = true, description = "Removes a secret.")
    static final class Remove implements Callable<Integer> {
        @Mixin RepositoryOption target;

        @Mixin EnvironmentOption environment;

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            boolean removed = SecretStore.encryptedFile(target.stateDir()).remove(environment.secretScope(target), name);
            return environment.removal(spec, target, "secret", name, removed);
        }
    }

    static String readValue(InputStream in) throws IOException {
        byte[] bytes = in.readAllBytes();
        int end = bytes.length;
        if (end > 0 && bytes[end - 1] == '\n') {
            end--;
            if (end > 0 && bytes[end - 1] == '\r') {
                end--;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, 0, end)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("the secret's value is not UTF-8 text");
        }
    }
}
