package dev.knotless.plan.knotless;

import dev.knotless.plan.Workflow;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The top level of one workflow file as {@link WorkflowReader} reads it: ours as it is, or that of
 * a dialect built on ours, which has no place for some of our fields and carries keys of its own
 * beside them (tangled's {@code engine: knotless}). Everything below the top level is ours either way.
 *
 * @param defaultName the workflow's name when the file gives none
 * @param refused fields of ours the dialect has no place for, each with why, in the order they are
 *     looked for; checked before anything else, so the file hears why rather than "unknown field"
 * @param leftAlone keys of the dialect's own, accepted and not read here
 */
public record Schema(String defaultName, Map<String, String> refused, List<String> leftAlone) {

    public Schema {
        Objects.requireNonNull(defaultName, "defaultName");
        refused = Collections.unmodifiableMap(new LinkedHashMap<>(refused));
        leftAlone = List.copyOf(leftAlone);
    }

    /** Ours, for {@code file}: every field of ours, and the file's base name when it gives none. */
    public static Schema ours(String file) {
        return new Schema(Workflow.baseName(file), Map.of(), List.of());
    }

    /** The top-level fields a file may have: ours less the refused, then the dialect's own. */
    List<String> fields() {
        List<String> fields = new ArrayList<>(WorkflowReader.WORKFLOW_FIELDS);
        fields.removeAll(refused.keySet());
        fields.addAll(leftAlone);
        return List.copyOf(fields);
    }
}
