package dev.knotless.plan.knotless;

import dev.knotless.plan.Matrix;
import dev.knotless.plan.MatrixCell;
import dev.knotless.plan.Service;
import dev.knotless.plan.Workflow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A matrix workflow made into one workflow per combination: {@code ${matrix.KEY}} filled in where
 * it is allowed (name, image, variables, service images), each key as {@code KNOTLESS_MATRIX_<KEY>},
 * and the combination named {@code build (jdk=21, db=postgres)}.
 */
final class Expansion {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{matrix\\.([^}]*)}");

    private Expansion() {}

    /** The keys {@code text} names with {@code ${matrix.KEY}}, in order, once each. */
    static Set<String> keys(String text) {
        Set<String> keys = new LinkedHashSet<>();
        Matcher m = PLACEHOLDER.matcher(text);
        while (m.find()) {
            keys.add(m.group(1));
        }
        return keys;
    }

    static String fill(String text, Map<String, String> values) {
        return PLACEHOLDER.matcher(text).replaceAll(m -> Matcher.quoteReplacement(values.get(m.group(1))));
    }

    static List<Workflow> expand(Workflow w, Matrix matrix) {
        List<Workflow> out = new ArrayList<>();
        for (Map<String, String> values : matrix.combinations()) {
            String filled = fill(w.name(), values);
            // a name that says which combination it is stays as written; otherwise the values say it
            String name = keys(w.name()).containsAll(values.keySet()) ? filled : filled + " (" + Matrix.label(values) + ")";
            Map<String, String> variables = new LinkedHashMap<>();
            w.variables().forEach((k, v) -> variables.put(k, fill(v, values)));
            values.forEach((k, v) -> variables.put(MatrixCell.variable(k), v));
            List<Service> services = w.services().stream().map(s -> s.withImage(fill(s.image(), values))).toList();
            out.add(w.asCombination(name, w.image() == null ? null : fill(w.image(), values), variables, services,
                    new MatrixCell(w.name(), values, matrix.maxParallel(), matrix.failFast())));
        }
        return out;
    }
}
