package dev.knotless.node.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;
import java.util.Map;

/** What an executed action produced, as measured by the node. Recorded in the ledger and signed in replies. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Result.Done.class, name = "done"),
    @JsonSubTypes.Type(value = Result.AllocationRunning.class, name = "allocation_running"),
    @JsonSubTypes.Type(value = Result.StepExited.class, name = "step_exited"),
    @JsonSubTypes.Type(value = Result.Received.class, name = "received"),
    @JsonSubTypes.Type(value = Result.Downloaded.class, name = "downloaded"),
    @JsonSubTypes.Type(value = Result.AllocationList.class, name = "allocation_list"),
    @JsonSubTypes.Type(value = Result.ServiceLog.class, name = "service_log"),
})
public sealed interface Result {

    /** The action took effect (or had already): pull, create, upload, stop, delete, attach. */
    record Done() implements Result {}

    record AllocationRunning(String allocation) implements Result {
        public AllocationRunning {
            Names.allocation(allocation);
        }
    }

    /**
     * A step's end as the node measured it: its exit code, and how many bytes it wrote to each
     * stream (the runner checks it received them all).
     */
    record StepExited(String allocation, int step, int exitCode, long durationMs, long stdoutBytes, long stderrBytes)
            implements Result {
        public StepExited {
            Names.allocation(allocation);
            if (durationMs < 0 || stdoutBytes < 0 || stderrBytes < 0) {
                throw new IllegalArgumentException("durations and byte counts must not be negative");
            }
        }
    }

    /** An upload's tar as the node read it: length and SHA-256 (hex). */
    record Received(String allocation, String path, long bytes, String sha256) implements Result {
        public Received {
            Names.allocation(allocation);
            Names.runPath(path);
            requireSha256(bytes, sha256);
        }
    }

    /** A download's tar as the node sent it: length and SHA-256 (hex). */
    record Downloaded(String allocation, String path, long bytes, String sha256) implements Result {
        public Downloaded {
            Names.allocation(allocation);
            Names.runPath(path);
            requireSha256(bytes, sha256);
        }
    }

    private static void requireSha256(long bytes, String sha256) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative");
        }
        if (sha256 == null || !sha256.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException("sha256 must be 64 lower-case hex digits");
        }
    }

    /** What a service printed ({@link Action.ReadServiceLog}), at most what was asked. */
    record ServiceLog(String allocation, String service, byte[] log) implements Result {
        public ServiceLog {
            Names.allocation(allocation);
            if (log == null || log.length > Action.MAX_SERVICE_LOG) {
                throw new IllegalArgumentException("a service log is missing or over " + Action.MAX_SERVICE_LOG + " bytes");
            }
            log = log.clone();
        }

        @Override
        public byte[] log() {
            return log.clone();
        }
    }

    record AllocationList(List<Allocation> allocations) implements Result {
        public AllocationList {
            allocations = List.copyOf(allocations);
        }
    }

    /**
     * @param steps the numbers of the steps the allocation holds (running or ended), so that a
     *              restarted runner can find the step its earlier process had going; none from an
     *              agent that does not send them
     */
    record Allocation(String allocation, String image, State state, Map<String, String> labels, List<Integer> steps) {
        public Allocation {
            Names.allocation(allocation);
            Names.image(image);
            labels = Names.labels(labels);
            steps = steps == null ? List.of() : List.copyOf(steps);
            if (state == null) {
                throw new IllegalArgumentException("state is missing");
            }
        }
    }

    enum State {
        CREATED, RUNNING, STOPPED;

        @JsonValue
        public String wireName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }
}
