package dev.knotless.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * Which workflow files a parse reads: ours, or ours as a tangled pipeline carries them.
 *
 * <p>A tangled workflow ({@code .tangled/workflows/*.yml} with {@code engine: knotless}) is our
 * schema with the knot's own keys beside it: {@code when} chose the trigger before the runner heard
 * of it, so {@code on} has no place; {@code engine} and {@code clone} are the knot's too. Its name is
 * its file name, since that is what tangled shows statuses and logs under, so {@code name} is
 * refused rather than silently meaning something tangled cannot show.
 */
public enum Dialect {
    KNOTLESS("knotless"),
    TANGLED("tangled");

    /** Tangled's keys: read by the knot, accepted and left alone here. */
    static final List<String> TANGLED_ONLY = List.of("when", "engine", "clone");

    private final String wireName;

    Dialect(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** @throws IllegalArgumentException naming the dialects there are */
    public static Dialect parse(String wireName) {
        for (Dialect d : values()) {
            if (d.wireName.equals(wireName)) {
                return d;
            }
        }
        throw new IllegalArgumentException("unknown workflow dialect '" + wireName + "' (knotless or tangled)");
    }

    /** The top-level fields a workflow of this dialect may have. */
    List<String> fields() {
        if (this == KNOTLESS) {
            return WorkflowParser.WORKFLOW_FIELDS;
        }
        List<String> fields = new ArrayList<>(WorkflowParser.WORKFLOW_FIELDS);
        fields.remove("on");
        fields.remove("name");
        fields.addAll(TANGLED_ONLY);
        return List.copyOf(fields);
    }

    /** A workflow's name when it gives none: the file's base name, without its extension for ours. */
    String defaultName(String file) {
        return this == KNOTLESS ? WorkflowParser.defaultName(file) : file.substring(file.lastIndexOf('/') + 1);
    }
}
