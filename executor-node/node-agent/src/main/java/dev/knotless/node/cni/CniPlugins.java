package dev.knotless.node.cni;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.node.host.HostCommand;
import dev.knotless.text.OneLine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Runs CNI plugin binaries from one directory by the CNI contract: the {@code CNI_*} variables in an
 * otherwise fixed environment, the configuration on stdin, a result or an error object on stdout.
 * Every failure becomes one line naming the plugin, the command and the container.
 */
final class CniPlugins {

    /** The CNI operations this runtime uses. */
    enum Command { ADD, DEL }

    static final String IFNAME = "eth0";

    /** Plugins run iptables and ip from PATH; they get a fixed one, not the agent's. */
    private static final String PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private final ObjectMapper json = new ObjectMapper();
    private final Path dir;
    private final Duration timeout;

    CniPlugins(Path dir, Duration timeout) {
        this.dir = dir.toAbsolutePath().normalize();
        this.timeout = timeout;
    }

    Path dir() {
        return dir;
    }

    /** Fails with one line unless every named plugin is an executable file in the directory. */
    void require(List<String> plugins) throws NetworkException {
        if (!Files.isDirectory(dir)) {
            throw new NetworkException("CNI plugin directory " + dir + " does not exist (Debian: apt-get install containernetworking-plugins)");
        }
        for (String plugin : plugins) {
            Path binary = dir.resolve(plugin);
            if (!Files.isRegularFile(binary) || !Files.isExecutable(binary)) {
                throw new NetworkException("CNI plugin " + plugin + " is missing: no executable " + binary);
            }
        }
    }

    /**
     * Runs {@code plugin} and returns its result object (for DEL, whatever it printed, usually nothing).
     *
     * @param netns the namespace path; required for ADD, optional for DEL
     */
    Optional<JsonNode> run(String plugin, Command command, String containerId, Optional<Path> netns, byte[] config)
            throws NetworkException {
        String what = "CNI plugin " + plugin + " " + command + " for container " + containerId;
        Map<String, String> env = new TreeMap<>();
        env.put("PATH", PATH);
        env.put("CNI_COMMAND", command.name());
        env.put("CNI_CONTAINERID", containerId);
        env.put("CNI_IFNAME", IFNAME);
        env.put("CNI_PATH", dir.toString());
        netns.ifPresent(ns -> env.put("CNI_NETNS", ns.toString()));
        HostCommand.Outcome outcome;
        try {
            outcome = HostCommand.run(List.of(dir.resolve(plugin).toString()), env, config, timeout);
        } catch (HostCommand.NotStarted e) {
            throw new NetworkException(what + ": cannot run it: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NetworkException(what + ": interrupted; the plugin was killed");
        }
        if (outcome.timedOut()) {
            throw new NetworkException(what + " did not finish within " + seconds(timeout) + "; killed");
        }
        if (outcome.exitCode() != 0) {
            throw new NetworkException(what + " failed: " + describeError(outcome));
        }
        if (outcome.stdout().isBlank()) {
            return Optional.empty();
        }
        JsonNode result = parse(outcome.stdout());
        if (result == null || !result.isObject()) {
            throw new NetworkException(what + ": the plugin printed something that is not a CNI result: "
                    + OneLine.of(outcome.stdout(), 400));
        }
        return Optional.of(result);
    }

    /** The spec's error object ({@code code}, {@code msg}, {@code details}); else what the plugin wrote. */
    private String describeError(HostCommand.Outcome outcome) {
        JsonNode error = parse(outcome.stdout());
        if (error != null && error.isObject() && error.has("code")) {
            int code = error.path("code").asInt();
            StringBuilder s = new StringBuilder("CNI error ").append(code);
            String meaning = meaning(code);
            if (!meaning.isEmpty()) {
                s.append(" (").append(meaning).append(")");
            }
            s.append(": ").append(error.path("msg").asText(""));
            String details = error.path("details").asText("");
            if (!details.isBlank()) {
                s.append("; ").append(details);
            }
            return OneLine.of(s.toString(), 400);
        }
        String said = !outcome.stderr().isBlank() ? outcome.stderr() : outcome.stdout();
        return said.isBlank()
                ? "exit status " + outcome.exitCode() + " and no error object"
                : "exit status " + outcome.exitCode() + ": " + OneLine.of(lastLine(said), 400);
    }

    /** The well-known codes of the CNI spec (1.0.0, "Error"); plugins use 100 and up for their own. */
    static String meaning(int code) {
        return switch (code) {
            case 1 -> "incompatible CNI version";
            case 2 -> "unsupported field in network configuration";
            case 3 -> "container unknown or does not exist";
            case 4 -> "invalid necessary environment variables";
            case 5 -> "I/O failure";
            case 6 -> "failed to decode content";
            case 7 -> "invalid network config";
            case 11 -> "try again later";
            default -> "";
        };
    }

    private @Nullable JsonNode parse(String text) {
        try {
            return json.readTree(text);
        } catch (IOException e) {
            return null;
        }
    }

    private static String lastLine(String text) {
        String last = "";
        for (String line : text.split("\\R")) {
            if (!line.isBlank()) {
                last = line;
            }
        }
        return last;
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
