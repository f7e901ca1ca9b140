package dev.knotless.plan.github;

import dev.knotless.plan.WorkflowException;
import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import dev.knotless.plan.yaml.YamlTree.Node;
import dev.knotless.plan.yaml.YamlTree.Scalar;
import java.util.Set;

/**
 * {@code permissions}: checked as GitHub checks them. They can only narrow what a run's own token
 * may do, and this runner's runs hold no forge token of their own, so a valid value changes
 * nothing here yet; {@code id-token} will matter to job identity tokens.
 */
final class Permissions {

    static final Set<String> SCOPES = Set.of("actions", "attestations", "checks", "contents", "deployments", "discussions",
            "id-token", "issues", "models", "packages", "pages", "pull-requests", "repository-projects", "security-events",
            "statuses");
    static final Set<String> LEVELS = Set.of("read", "write", "none");

    private Permissions() {}

    static void check(Node node, String path, Fields fields) throws WorkflowException {
        if (node instanceof Scalar s) {
            if (!s.text().equals("read-all") && !s.text().equals("write-all")) {
                throw fields.error(node.at(), path, "'" + s.text() + "': expected read-all, write-all or a map of scopes");
            }
            return;
        }
        MapNode map = fields.map(node, path, "read-all, write-all or a map such as {contents: read}");
        for (Entry e : map.entries().values()) {
            String scopePath = YamlTree.child(path, e.key());
            if (!SCOPES.contains(e.key())) {
                throw fields.error(e.keyAt(), scopePath, "'" + e.key() + "' is not a permission scope; expected one of "
                        + String.join(", ", SCOPES.stream().sorted().toList()));
            }
            String level = fields.string(e.value(), scopePath, "read, write or none");
            if (!LEVELS.contains(level) || e.key().equals("id-token") && level.equals("read")) {
                throw fields.error(e.value().at(), scopePath, "'" + level + "' is not a level of " + e.key() + "; expected "
                        + (e.key().equals("id-token") ? "write or none" : "read, write or none"));
            }
        }
    }
}
