package dev.knotless.plan.github;

import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.expression.Expression;
import dev.knotless.plan.expression.ExpressionException;
import dev.knotless.plan.expression.Template;
import dev.knotless.plan.expression.Value;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.util.List;
import java.util.Map;

/**
 * {@code concurrency}, where it asks for what the runner does anyway: the daemon cancels a branch's
 * runs of older commits, waiting or running, when a newer commit arrives (superseding), which is
 * GitHub's {@code cancel-in-progress: true} in a group of the ref. That form is accepted; any other
 * (a queue without cancelling, {@code cancel-in-progress: false} or made by an expression, a group
 * that is not per ref) fails closed, since the runner would cancel what the file says to keep, or
 * keep what it says to cancel.
 */
final class Concurrency {

    static final Keys KEYS = new Keys(List.of("group", "cancel-in-progress"), Map.of());
    private static final String WHAT = "this runner cancels a branch's older runs, waiting or running, when a newer"
            + " commit arrives; write {group: ${{ github.workflow }}-${{ github.ref }}, cancel-in-progress: true}"
            + " to ask for that, or remove 'concurrency'";

    private Concurrency() {}

    static void check(Node node, String path, Fields fields, Problems problems) throws WorkflowException {
        if (node instanceof Scalar) {
            throw fields.error(node.at(), path, "a group alone queues runs without cancelling the running one, which is not"
                    + " carried out: " + WHAT);
        }
        MapNode map = fields.map(node, path, "a map such as {group: ..., cancel-in-progress: true}");
        KEYS.check(map, path, fields, problems);
        Entry group = map.entries().get("group");
        if (group == null) {
            throw fields.error(map.at(), path + ".group", "required: " + WHAT);
        }
        String text = fields.string(group.value(), path + ".group", "a group name");
        if (!perRef(text)) {
            throw fields.error(group.value().at(), path + ".group", "a group that is not one per ref is not carried out: "
                    + WHAT);
        }
        Entry cancel = map.entries().get("cancel-in-progress");
        if (cancel == null || !(cancel.value() instanceof Scalar s) || !s.text().equals("true")) {
            Node at = cancel == null ? map : cancel.value();
            throw fields.error(at.at(), path + ".cancel-in-progress", "only 'true' is carried out: " + WHAT);
        }
    }

    /**
     * Whether the group's expressions name the ref ({@code github.ref}, {@code github.ref_name}, or
     * {@code github.head_ref} of a pull request), so that each branch has its own group.
     */
    private static boolean perRef(String group) {
        try {
            return namesRef(Template.parse(group, ReadTime.SCOPE).expression());
        } catch (ExpressionException e) {
            return false;
        }
    }

    private static boolean namesRef(Expression e) {
        if (e instanceof Expression.Index index && index.target() instanceof Expression.Context c && c.name().equals("github")
                && index.key() instanceof Expression.Literal key && key.value() instanceof Value.StringValue name
                && List.of("ref", "ref_name", "head_ref").contains(name.value().toLowerCase(java.util.Locale.ROOT))) {
            return true;
        }
        return e.children().stream().anyMatch(Concurrency::namesRef);
    }
}
