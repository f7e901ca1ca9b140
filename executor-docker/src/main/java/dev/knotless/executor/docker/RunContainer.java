package dev.knotless.executor.docker;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.executor.RunSpec;
import java.io.IOException;
import java.util.Optional;

/**
 * What a run's steps and transfers share: the engine, the run's spec, and its container (id and
 * name), with the one question both ask when a call fails: is the container still there?
 */
record RunContainer(EngineClient engine, RunSpec spec, String id, String name) {

    /** Why the container cannot run steps any more, if it cannot; empty also when the engine cannot say. */
    Optional<String> gone() {
        try {
            return goneOrFail();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** Why the container cannot run steps any more, if it cannot; the engine's failure when it cannot say. */
    Optional<String> goneOrFail() throws IOException {
        Optional<JsonNode> c = engine.inspectContainer(id);
        if (c.isEmpty()) {
            return Optional.of(name + " was removed");
        }
        JsonNode state = c.get().path("State");
        String status = state.path("Status").asText("");
        if (!state.path("Running").asBoolean(false) || status.equals("removing") || status.equals("dead")) {
            return Optional.of(name + " stopped (" + state.path("Status").asText("exited")
                    + ", exit code " + state.path("ExitCode").asText("?")
                    + (state.path("OOMKilled").asBoolean(false) ? ", out of memory" : "") + ")");
        }
        return Optional.empty();
    }
}
