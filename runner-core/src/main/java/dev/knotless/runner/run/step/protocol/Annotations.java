package dev.knotless.runner.run.step.protocol;

import dev.knotless.checks.Annotation;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * An {@code ::error}, {@code ::warning} or {@code ::notice} command as an annotation, its place
 * made consistent as GitHub's runner makes it ({@code IssueCommandExtension.ValidateLinesAndColumns}
 * in actions/runner's {@code src/Runner.Worker/ActionCommandManager.cs}): an end without a start
 * becomes the start, columns without a line go, columns across different lines go, and an end
 * before its start takes both away. A file inside the workspace is named relative to it.
 */
final class Annotations {

    /** The longest file name or title kept. */
    static final int MOST_TEXT = 1024;

    private Annotations() {}

    static Annotation of(Annotation.Kind kind, WorkflowCommand command, String workspace) {
        Map<String, String> p = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        p.putAll(command.properties());
        Map<String, Integer> n = new HashMap<>();
        for (String key : new String[] {"line", "endLine", "col", "endColumn"}) {
            Integer value = number(p.get(key));
            if (value != null) {
                n.put(key, value);
            }
        }
        if (n.containsKey("endLine") && !n.containsKey("line")) {
            n.put("line", n.get("endLine"));
            p.put("line", p.get("endLine"));
        }
        if (n.containsKey("endColumn") && !n.containsKey("col")) {
            n.put("col", n.get("endColumn"));
        }
        boolean column = n.containsKey("col") || n.containsKey("endColumn");
        if (!n.containsKey("line") && column) {
            n.remove("col");
            n.remove("endColumn");
        }
        if (n.containsKey("endLine") && !p.get("line").equals(p.get("endLine")) && column) {
            n.remove("col");
            n.remove("endColumn");
        }
        if (n.containsKey("line") && n.containsKey("endLine") && n.get("endLine") < n.get("line")) {
            n.remove("line");
            n.remove("endLine");
        }
        if (n.containsKey("col") && n.containsKey("endColumn") && n.get("endColumn") < n.get("col")) {
            n.remove("col");
            n.remove("endColumn");
        }
        return new Annotation(kind, command.data(), file(p.get("file"), workspace), n.get("line"), n.get("endLine"),
                n.get("col"), n.get("endColumn"), text(p.get("title")));
    }

    /** As .NET's {@code int.TryParse}: an optional sign and digits, with whitespace around. */
    private static @Nullable Integer number(@Nullable String text) {
        if (text == null) {
            return null;
        }
        try {
            return Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static @Nullable String file(@Nullable String file, String workspace) {
        if (file == null || file.isEmpty()) {
            return null;
        }
        String prefix = workspace.endsWith("/") ? workspace : workspace + "/";
        return text(file.startsWith(prefix) && file.length() > prefix.length() ? file.substring(prefix.length()) : file);
    }

    private static @Nullable String text(@Nullable String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        return StepReport.cut(value, MOST_TEXT);
    }
}
