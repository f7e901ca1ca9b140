package dev.knotless.executor.node.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;

/** What an executed action produced, as measured by the node. Recorded in the ledger and signed in replies. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Result.Done.class, name = "done"),
    @JsonSubTypes.Type(value = Result.AllocationRunning.class, name = "allocation_running"),
    @JsonSubTypes.Type(value = Result.StepExited.class, name = "step_exited"),
    @JsonSubTypes.Type(value = Result.Downloaded.class, name = "downloaded"),
    @JsonSubTypes.Type(value = Result.AllocationList.class, name = "allocation_list"),
})
public sealed interface Result {

    /** The action took effect (or had already): pull, create, upload, stop, delete, attach. */
    record Done() implements Result {}

    record AllocationRunning(String allocation) implements Result {
        public AllocationRunning {
            Names.allocation(allocation);
        }
    }

    record StepExited(String allocation, int step, int exitCode, long durationMs) implements Result {
        public StepExited {
            Names.allocation(allocation);
            if (durationMs < 0) {
                throw new IllegalArgumentException("durationMs must not be negative");
            }
        }
    }

    record Downloaded(String allocation, String path, byte[] tar) implements Result {
        public Downloaded {
            Names.allocation(allocation);
            Names.allocationPath(path);
            if (tar == null) {
                throw new IllegalArgumentException("tar is missing");
            }
            tar = tar.clone();
        }

        @Override
        public byte[] tar() {
            return tar.clone();
        }
    }

    record AllocationList(List<Allocation> allocations) implements Result {
        public AllocationList {
            allocations = List.copyOf(allocations);
        }
    }

    record Allocation(String allocation, String image, State state) {
        public Allocation {
            Names.allocation(allocation);
            Names.image(image);
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
