package dev.knotless.plan.github;

import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * {@code actions/checkout}, served by the runner's own checkout: the workspace holds the run's
 * commit before the first step, so the step itself has nothing left to do. Its inputs are read
 * for what they ask of that checkout: {@code fetch-depth: 0} (in a job's own steps) asks for the
 * commit's whole history and its tags ({@link #history}); the other accepted values ask for no
 * more than it gives (a fresh workspace, no credential kept, since the run holds none); any other
 * fails closed at its line.
 */
final class CheckoutStep {

    /** The inputs, with the values that ask for no more than the runner's checkout gives. */
    static final Map<String, Set<String>> ACCEPTS = Map.of(
            "fetch-depth", Set.of("0", "1"), "clean", Set.of("true", "false"),
            "persist-credentials", Set.of("true", "false"), "lfs", Set.of("false"), "fetch-tags", Set.of("true", "false"),
            "show-progress", Set.of("true", "false"), "set-safe-directory", Set.of("true", "false"),
            "submodules", Set.of("false"), "path", Set.of(".", ""));
    private static final Pattern ACTION = Pattern.compile("actions/checkout@[A-Za-z0-9._/-]+");

    private final Fields fields;
    private final Problems problems;
    private final ReadTime values;
    private boolean history;

    CheckoutStep(Fields fields, Problems problems, ReadTime values) {
        this.fields = fields;
        this.problems = problems;
        this.values = values;
    }

    /** Whether a checkout read so far asked for the whole history. */
    boolean history() {
        return history;
    }

    /**
     * Reads the step that uses {@code action} (not a local one) with inputs {@code with}.
     *
     * @param ofJob whether the step is the job's own, not a local action's
     * @return the step's script: nothing left to do
     */
    String read(String action, YamlTree.Position at, String path, @Nullable Entry with, boolean ofJob)
            throws WorkflowException {
        if (action.startsWith("docker://")) {
            throw fields.error(at, path, "'" + action + "': docker actions are not carried out yet");
        }
        if (!ACTION.matcher(action).matches()) {
            throw fields.error(at, path, "'" + action + "': actions other than actions/checkout are not carried out yet;"
                    + " write the step as 'run'");
        }
        if (with == null) {
            return ":";
        }
        String withPath = path.replace(".uses", ".with");
        MapNode inputs = fields.map(with.value(), withPath, "a map of inputs");
        boolean wholeHistory = false;
        boolean tags = true;
        for (Entry input : inputs.entries().values()) {
            String inputPath = YamlTree.child(withPath, input.key());
            Set<String> accepted = ACCEPTS.get(input.key());
            String given = values.text(input.value(), inputPath, "a value").toLowerCase(Locale.ROOT);
            if (accepted == null || !accepted.contains(given)) {
                problems.add(fields.error(input.value().at(), inputPath, "actions/checkout's '" + input.key() + ": "
                        + given + "' is not carried out yet: the runner checks out the run's commit into the workspace,"
                        + " one commit deep or with its whole history (fetch-depth: 0); remove it or do it in a 'run' step"));
            } else if (input.key().equals("fetch-depth") && given.equals("0")) {
                wholeHistory = true;
                if (!ofJob) {
                    problems.add(fields.error(input.value().at(), inputPath, "a whole history is checked out for a job's"
                            + " own actions/checkout step, not yet for one in a local action"));
                }
            } else if (input.key().equals("fetch-tags")) {
                tags = given.equals("true");
            }
        }
        if (wholeHistory && !tags) {
            problems.add(fields.error(inputs.at(), withPath, "'fetch-tags: false' with 'fetch-depth: 0' is not carried out:"
                    + " the whole history comes with the tags in it"));
        }
        history |= wholeHistory;
        return ":";
    }
}
