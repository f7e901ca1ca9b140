package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The node agent's systemd unit (dist/systemd/knotless-node.service): what keeps steps alive over
 * an agent restart or upgrade is in it, its command line is one the agent accepts, and the guide
 * shows the same file.
 */
class NodeUnitFileTest {

    static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.exists(dir.resolve("dist/systemd"))) {
            dir = dir.getParent();
        }
        return dir;
    }

    /** Section name, then its directives (continuation lines joined, comments dropped). */
    static Map<String, Map<String, String>> parse(String unit) {
        Map<String, Map<String, String>> sections = new LinkedHashMap<>();
        Map<String, String> current = null;
        String pending = "";
        for (String raw : unit.lines().toList()) {
            String line = pending + raw.strip();
            if (line.endsWith("\\")) {
                pending = line.substring(0, line.length() - 1) + " ";
                continue;
            }
            pending = "";
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("[")) {
                current = sections.computeIfAbsent(line.substring(1, line.length() - 1), k -> new LinkedHashMap<>());
            } else {
                current.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
        }
        return sections;
    }

    @Test
    void stepsOutliveTheAgentAndRestartsAreRateLimited() throws Exception {
        String unit = Files.readString(root().resolve("dist/systemd/knotless-node.service"), StandardCharsets.UTF_8);
        Map<String, Map<String, String>> sections = parse(unit);

        assertThat(sections.get("Service")).containsEntry("KillMode", "process").containsEntry("Restart", "on-failure")
                .containsEntry("SuccessExitStatus", "143");
        assertThat(sections.get("Unit")).containsKeys("StartLimitIntervalSec", "StartLimitBurst");
        assertThat(sections.get("Install")).containsEntry("WantedBy", "multi-user.target");

        List<String> argv = new ArrayList<>(List.of(sections.get("Service").get("ExecStart").split("\\s+")));
        assertThat(argv.removeFirst()).endsWith("/bin/knotless-run");
        picocli.CommandLine.ParseResult parsed = Main.commandLine().parseArgs(argv.toArray(String[]::new));
        assertThat(parsed.subcommand().commandSpec().name()).isEqualTo("node");
    }

    @Test
    void theGuideShowsTheShippedUnit() throws Exception {
        String unit = Files.readString(root().resolve("dist/systemd/knotless-node.service"), StandardCharsets.UTF_8);
        String guide = Files.readString(root().resolve("docs/guide/node.md"), StandardCharsets.UTF_8);
        assertThat(guide).as("docs/guide/node.md shows dist/systemd/knotless-node.service as it is").contains(unit);
    }
}
