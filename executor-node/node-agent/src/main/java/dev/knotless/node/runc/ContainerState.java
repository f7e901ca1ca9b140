package dev.knotless.node.runc;

import java.nio.file.Path;
import java.util.Map;

/** What {@code runc state} / {@code runc list} say about one container. */
public record ContainerState(String id, Status status, long pid, Path bundle, Map<String, String> annotations) {

    public ContainerState {
        annotations = Map.copyOf(annotations);
    }

    public enum Status {
        CREATING, CREATED, RUNNING, PAUSED, STOPPED;

        static Status of(String runc) {
            return switch (runc) {
                case "creating" -> CREATING;
                case "created" -> CREATED;
                case "running" -> RUNNING;
                case "paused" -> PAUSED;
                case "stopped" -> STOPPED;
                default -> throw new IllegalArgumentException("unknown runc status '" + runc + "'");
            };
        }
    }
}
