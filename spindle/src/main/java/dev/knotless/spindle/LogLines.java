package dev.knotless.spindle;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.forge.LiveEvent;
import java.time.Clock;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * A run's live events as the lines tangled's log viewer reads: {@code control} lines where a step
 * starts and ends, {@code data} lines of output. Output is masked before it becomes an event.
 */
record LogLines(ObjectMapper json, Clock clock) {

    /** The line for {@code event}; empty for the run's end, which closes the stream instead. */
    Optional<String> of(LiveEvent event) {
        ObjectNode line = json.createObjectNode();
        switch (event) {
            case LiveEvent.StepStarted s -> control(line, s.step(), s.name(), "start");
            case LiveEvent.StepFinished f -> control(line, f.step(), f.result().name(), "end");
            case LiveEvent.Line l -> data(line, l.step(), l.text(), "stderr".equals(l.stream()) ? "stderr" : "stdout");
            case LiveEvent.Finished f -> {
                return Optional.empty();
            }
        }
        return Optional.of(line.toString());
    }

    /** A line of a log file read after the run: output without its step. */
    String data(String text) {
        ObjectNode line = json.createObjectNode();
        data(line, 0, text, "stdout");
        return line.toString();
    }

    private void control(ObjectNode line, int step, String name, String status) {
        start(line, "control", step, name);
        line.put("step_status", status);
        line.put("step_kind", "user");
    }

    private void data(ObjectNode line, int step, String text, String stream) {
        start(line, "data", step, text);
        line.put("stream", stream);
    }

    /** What every line begins with, in the order tangled writes it. */
    private void start(ObjectNode line, String kind, int step, String content) {
        line.put("kind", kind);
        line.put("content", content);
        line.put("time", DateTimeFormatter.ISO_INSTANT.format(clock.instant().truncatedTo(ChronoUnit.MILLIS)));
        line.put("step_id", step);
    }
}
