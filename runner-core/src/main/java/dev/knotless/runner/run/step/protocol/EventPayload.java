package dev.knotless.runner.run.step.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.checks.Event;
import dev.knotless.plan.Input;
import dev.knotless.plan.RunFact;
import java.util.Map;

/**
 * What a run knows of the event that made it, as GitHub's event payload is written: the
 * repository ({@code full_name}, {@code name}, {@code owner.login}, {@code default_branch}) and a
 * manual run's inputs, as text. It is what {@code github.event} holds in expressions (the GitHub
 * front-end's {@code JobContexts}), so a step reads the same from its file as from its expressions;
 * the rest of GitHub's payload (a push's commits, a pull request) is not there, as a file reading
 * it there is refused.
 */
public final class EventPayload {

    private static final ObjectMapper JSON = new ObjectMapper();

    private EventPayload() {}

    /**
     * The payload of a run with {@code facts}, made by {@code event}, whose workflow declares
     * {@code inputs}, with the run's {@code variables} (where a manual run's inputs are).
     */
    public static String json(Map<RunFact, String> facts, Event event, Map<String, Input> inputs, Map<String, String> variables) {
        ObjectNode payload = JSON.createObjectNode();
        if (event == Event.MANUAL) {
            ObjectNode given = payload.putObject("inputs");
            inputs.forEach((name, input) -> {
                String value = variables.get(input.variable());
                if (value != null) {
                    given.put(name, value);
                }
            });
        }
        ObjectNode repository = payload.putObject("repository");
        repository.put("full_name", facts.getOrDefault(RunFact.REPOSITORY, ""));
        repository.put("name", facts.getOrDefault(RunFact.REPOSITORY_NAME, ""));
        repository.putObject("owner").put("login", facts.getOrDefault(RunFact.REPOSITORY_OWNER, ""));
        repository.put("default_branch", facts.getOrDefault(RunFact.DEFAULT_BRANCH, ""));
        try {
            return JSON.writeValueAsString(payload);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an object of strings always writes", e);
        }
    }
}
