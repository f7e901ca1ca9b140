package dev.knotless.plan.github;

import dev.knotless.plan.yaml.Fields;
import dev.knotless.plan.yaml.YamlTree;
import dev.knotless.plan.yaml.YamlTree.Entry;
import dev.knotless.plan.yaml.YamlTree.MapNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What one level of a GitHub Actions file may hold: the keys this runner carries out, and the keys
 * of GitHub's schema it does not, each with what to write instead. A key of neither kind is a
 * mistake, answered with the closest known key. Every such key of a map is a problem of its own.
 *
 * @param carried the keys read
 * @param refused GitHub's keys that fail closed, to the advice given at their line
 */
record Keys(List<String> carried, Map<String, String> refused) {

    Keys {
        carried = List.copyOf(carried);
        refused = Map.copyOf(refused);
    }

    /** Adds a problem for each key of {@code map} that is refused or unknown. */
    void check(MapNode map, String path, Fields fields, Problems problems) {
        for (Entry entry : map.entries().values()) {
            String key = entry.key();
            String at = YamlTree.child(path, key);
            String advice = refused.get(key);
            if (advice != null) {
                problems.add(fields.error(entry.keyAt(), at, "not supported here: " + advice));
            } else if (!carried.contains(key)) {
                List<String> all = new ArrayList<>(carried);
                // Map.copyOf's order changes from one JVM to the next; a message must not
                all.addAll(new java.util.TreeSet<>(refused.keySet()));
                problems.check(() -> fields.onlyKnown(new MapNode(Map.of(key, entry), map.at()), path, all));
            }
        }
    }

    /** Whether {@code key} is one this runner reads. */
    boolean carries(String key) {
        return carried.contains(key);
    }
}
