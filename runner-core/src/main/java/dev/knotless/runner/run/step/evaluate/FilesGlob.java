package dev.knotless.runner.run.step.evaluate;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The patterns of a {@code hashFiles} call, matched as GitHub's runner matches them ({@code
 * @actions/glob}, with its defaults there): each argument's lines are patterns, a {@code #} line
 * and an empty one skipped; relative to the workspace (or absolute under it); {@code **} any
 * directories, {@code *} and {@code ?} within a name, {@code [...]} a class; names starting with a
 * dot matched like others; a pattern that matches a directory matches everything under it; and
 * a {@code !} pattern takes back what the patterns before it matched, so a later one may match it
 * again. Braces are not expanded, as there.
 */
final class FilesGlob {

    private record Line(boolean negate, Pattern regex) {}

    private final List<Line> lines;

    private FilesGlob(List<Line> lines) {
        this.lines = lines;
    }

    /** The patterns of {@code arguments}, the workspace being {@code workspace} (absolute). */
    static FilesGlob of(List<String> arguments, String workspace) {
        List<Line> lines = new ArrayList<>();
        for (String argument : arguments) {
            for (String raw : argument.split("\n", -1)) {
                String line = raw.strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                boolean negate = false;
                while (line.startsWith("!")) {
                    negate = !negate;
                    line = line.substring(1);
                }
                Pattern regex = regex(relative(line, workspace));
                if (regex != null) {
                    lines.add(new Line(negate, regex));
                }
            }
        }
        return new FilesGlob(List.copyOf(lines));
    }

    /** Whether any pattern is left to match with. */
    boolean any() {
        return !lines.isEmpty();
    }

    /** Whether the file {@code path} (relative to the workspace, {@code /}-separated) is matched. */
    boolean matches(String path) {
        boolean matched = false;
        for (Line line : lines) {
            if (line.negate() ? matched : !matched) {
                if (matchesOrUnder(line.regex(), path)) {
                    matched = !line.negate();
                }
            }
        }
        return matched;
    }

    private static boolean matchesOrUnder(Pattern regex, String path) {
        if (regex.matcher(path).matches()) {
            return true;
        }
        for (int slash = path.lastIndexOf('/'); slash > 0; slash = path.lastIndexOf('/', slash - 1)) {
            if (regex.matcher(path.substring(0, slash)).matches()) {
                return true;
            }
        }
        return false;
    }

    /** The pattern relative to the workspace; null for an absolute one outside it, which matches nothing there. */
    private static @Nullable String relative(String pattern, String workspace) {
        if (pattern.startsWith("/")) {
            if (pattern.equals(workspace)) {
                return "**";
            }
            if (!pattern.startsWith(workspace + "/")) {
                return null;
            }
            pattern = pattern.substring(workspace.length() + 1);
        }
        while (pattern.startsWith("./")) {
            pattern = pattern.substring(2);
        }
        pattern = pattern.replaceAll("/+", "/");
        if (pattern.endsWith("/")) {
            pattern = pattern.substring(0, pattern.length() - 1);
        }
        return pattern.isEmpty() || pattern.equals(".") ? "**" : pattern;
    }

    private static @Nullable Pattern regex(@Nullable String pattern) {
        if (pattern == null) {
            return null;
        }
        StringBuilder regex = new StringBuilder();
        String[] segments = pattern.split("/");
        for (int s = 0; s < segments.length; s++) {
            String segment = segments[s];
            boolean last = s == segments.length - 1;
            if (segment.equals("**")) {
                regex.append(last ? ".*" : "(?:[^/]*/)*");
                continue;
            }
            segment(segment, regex);
            if (!last) {
                regex.append('/');
            }
        }
        return Pattern.compile(regex.toString());
    }

    private static void segment(String segment, StringBuilder regex) {
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            switch (c) {
                case '*' -> regex.append("[^/]*");
                case '?' -> regex.append("[^/]");
                case '[' -> {
                    int close = segment.indexOf(']', i + 2);
                    if (close < 0) {
                        regex.append("\\[");
                    } else {
                        String body = segment.substring(i + 1, close);
                        boolean not = body.startsWith("!") || body.startsWith("^");
                        if (not) {
                            body = body.substring(1);
                        }
                        regex.append('[').append(not ? "^/" : "").append(body.replace("\\", "\\\\").replace("[", "\\["))
                                .append(']');
                        i = close;
                    }
                }
                case '\\' -> {
                    if (i + 1 < segment.length()) {
                        regex.append(Pattern.quote(String.valueOf(segment.charAt(++i))));
                    }
                }
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
    }
}
