package dev.knotless.runner.run.step.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.knotless.checks.Event;
import dev.knotless.plan.Input;
import dev.knotless.runner.run.step.evaluate.RunFacts;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventPayloadTest {

    static final RunFacts FACTS = RunFacts.of("acme/web", "refs/heads/trunk", "0123", "refs/heads/main", Event.MANUAL,
            "run-1", List.of());

    @Test
    void theRepositoryAndAManualRunsInputsAsTextAsGithubsPayloadHasThem() throws Exception {
        Map<String, Input> inputs = new LinkedHashMap<>();
        inputs.put("level", new Input("level", "info", List.of(), false, null));
        inputs.put("dry-run", new Input("dry-run", "false", List.of("true", "false"), false, null, Input.Kind.BOOLEAN));
        inputs.put("note", new Input("note", null, List.of(), false, null));
        Map<String, String> variables = Map.of(inputs.get("level").variable(), "debug \"quoted\" 'single'",
                inputs.get("dry-run").variable(), "true", "OTHER", "x");

        JsonNode manual = new ObjectMapper().readTree(EventPayload.json(FACTS.values(), Event.MANUAL, inputs, variables));

        assertThat(manual.toString()).isEqualTo("""
                {"inputs":{"level":"debug \\"quoted\\" 'single'","dry-run":"true"},"repository":{"full_name":"acme/web",\
                "name":"web","owner":{"login":"acme"},"default_branch":"trunk"}}""");
        JsonNode push = new ObjectMapper().readTree(EventPayload.json(FACTS.values(), Event.PUSH, inputs, variables));
        assertThat(push.has("inputs")).as("only a manual run has inputs").isFalse();
        assertThat(push.path("repository").path("default_branch").asText()).isEqualTo("trunk");
    }
}
