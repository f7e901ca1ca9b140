package dev.knotless.node.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/** What a node tells the runner, always inside a signed {@link Observation}. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Outcome.Executed.class, name = "executed"),
    @JsonSubTypes.Type(value = Outcome.Replayed.class, name = "replayed"),
    @JsonSubTypes.Type(value = Outcome.Rejected.class, name = "rejected"),
    @JsonSubTypes.Type(value = Outcome.Failed.class, name = "failed"),
    @JsonSubTypes.Type(value = Report.OrphansFound.class, name = "orphans_found"),
    @JsonSubTypes.Type(value = NodeStatus.class, name = "node_status"),
})
public sealed interface Report permits Outcome, Report.OrphansFound, NodeStatus {

    /** Allocations the node holds that no runner asked for, found by its own sweep. */
    record OrphansFound(List<String> allocations) implements Report {
        public OrphansFound {
            allocations = List.copyOf(allocations);
            allocations.forEach(Names::allocation);
        }
    }
}
