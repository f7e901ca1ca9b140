package dev.knotless.cli;

import dev.knotless.executor.kubernetes.ScopedCredentials;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "kubernetes", mixinStandardHelpOptions = true,
        description = "Tools for the kubernetes executor.",
        subcommands = {KubernetesCommand.Credentials.class})
final class KubernetesCommand extends CommandGroup {

    @Command(name = "credentials", mixinStandardHelpOptions = true,
            description = {"With an admin kubeconfig, makes a ServiceAccount, a namespaced Role (Jobs, pods,"
                    + " pods/exec, pods/log, events, NetworkPolicies: only the verbs the runner uses; no Secrets) and a binding,"
                    + " and writes a kubeconfig with a token that expires, for the runner's --kubeconfig."})
    static final class Credentials implements Callable<Integer> {
        @Option(names = "--kubeconfig", required = true, paramLabel = "FILE", description = "An admin kubeconfig.")
        String kubeconfig;

        @Option(names = "--context", paramLabel = "NAME", description = "The context to use (default: the current one).")
        @Nullable String context;

        @Option(names = "--namespace", required = true, paramLabel = "NS", description = "Where runs will live; made if missing.")
        String namespace;

        @Option(names = "--name", defaultValue = "knotless-runner", paramLabel = "NAME",
                description = "Name of the ServiceAccount, Role and binding (default: ${DEFAULT-VALUE}).")
        String name;

        @Option(names = "--ttl", defaultValue = "24h", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "How long the token is valid (default: ${DEFAULT-VALUE}).")
        Duration ttl;

        @Option(names = "--read-nodes",
                description = "Also let the runner list nodes and pods cluster-wide (a ClusterRole), so an unschedulable"
                        + " run says what the largest node has free. Without it a binding made earlier is removed.")
        boolean readNodes;

        @Option(names = "--out", required = true, paramLabel = "FILE", description = "Where to write the kubeconfig (mode 0600).")
        Path out;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Path written = ScopedCredentials.write(kubeconfig, context, namespace, name, ttl, out, readNodes);
            spec.commandLine().getOut().println(written.toAbsolutePath());
            spec.commandLine().getOut().flush();
            return ExitCodes.SUCCESS;
        }
    }
}
