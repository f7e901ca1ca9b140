package dev.knotless.runner.workflow;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * One YAML document read into a tree whose every node and key knows the line and column it was
 * written at, so that a schema error can point at it.
 *
 * <p>Read by walking Jackson's YAML token stream (Jackson's own {@code JsonNode} keeps no
 * locations). Beyond what the token stream gives: duplicate keys are errors, anchors and aliases
 * are resolved (an alias node reports the alias's position; what it copies keeps the anchor's),
 * the merge key {@code <<} merges a map or a list of maps under the explicit keys, and a file must
 * hold exactly one document. Stateless; {@link #read} is safe to call from any thread.
 */
final class YamlTree {

    /** Deeper nesting than any workflow needs; keeps recursion far from the stack's end. */
    static final int MAX_DEPTH = 64;
    /**
     * Nodes one file may build, counting what aliases and merge keys copy as if written out: a real
     * workflow has a few thousand; a file of aliases to aliases, or of merge keys each copying the
     * last map, has exponentially or quadratically many (a pull request's workflow files are read
     * by the daemon, so this bounds what a stranger can make it hold).
     */
    static final long MAX_NODES = 100_000;
    /** How the problem of a file over its node budget starts. */
    static final String OVER_BUDGET = "the file builds more than ";

    private static final YAMLFactory FACTORY = new YAMLFactory();

    private YamlTree() {}

    record Position(int line, int column) {
        static final Position START = new Position(1, 1);
    }

    enum Kind {
        STRING("a string"),
        NUMBER("a number"),
        BOOLEAN("a boolean"),
        NULL("no value"),
        OTHER("a tagged value"),
        MAP("a map"),
        LIST("a list");

        final String described;

        Kind(String described) {
            this.described = described;
        }
    }

    sealed interface Node permits Scalar, MapNode, ListNode {
        Position at();

        Kind kind();

        Node movedTo(Position position);
    }

    /** A scalar; {@code text} is exactly as written ({@code 1.10} stays {@code 1.10}). */
    record Scalar(Kind kind, String text, Position at) implements Node {
        @Override
        public Node movedTo(Position position) {
            return new Scalar(kind, text, position);
        }
    }

    record Entry(String key, Position keyAt, Node value) {}

    /** Entries in the order written. */
    record MapNode(Map<String, Entry> entries, Position at) implements Node {
        @Override
        public Kind kind() {
            return Kind.MAP;
        }

        @Override
        public Node movedTo(Position position) {
            return new MapNode(entries, position);
        }
    }

    record ListNode(List<Node> items, Position at) implements Node {
        @Override
        public Kind kind() {
            return Kind.LIST;
        }

        @Override
        public Node movedTo(Position position) {
            return new ListNode(items, position);
        }
    }

    /**
     * The file's one document.
     *
     * @throws WorkflowException for a syntax error, an empty file, a second document, a duplicate
     *     key, an unknown alias or a bad merge
     */
    static Node read(String file, String text) throws WorkflowException {
        return read(file, text, MAX_NODES).root();
    }

    /** A file's document and the nodes it built (aliases and merges counted as copies). */
    record Read(Node root, long nodes) {}

    /** As {@link #read(String, String)}, with at most {@code maxNodes} nodes built. */
    static Read read(String file, String text, long maxNodes) throws WorkflowException {
        try (JsonParser parser = FACTORY.createParser(text)) {
            Builder builder = new Builder(file, (YAMLParser) parser, maxNodes);
            JsonToken first = parser.nextToken();
            if (first == null || first == JsonToken.VALUE_NULL) {
                Position at = first == null ? Position.START : position(parser.currentTokenLocation());
                throw new WorkflowException(file, at.line(), at.column(), null,
                        "the file is empty; a workflow needs at least 'steps'");
            }
            Node root = builder.value("", 0);
            if (parser.nextToken() != null) {
                Position at = position(parser.currentTokenLocation());
                throw new WorkflowException(file, at.line(), at.column(), null,
                        "a second YAML document; a workflow file holds one ('---' starts another)");
            }
            return new Read(root, builder.built);
        } catch (JacksonException e) {
            throw syntaxError(file, e);
        } catch (IOException e) {
            // A String source does no I/O; anything here is the parser's complaint about the text.
            throw new WorkflowException(file, 1, 1, null, "YAML: " + firstLine(e.getMessage()));
        } catch (RuntimeException e) {
            // SnakeYAML's own unchecked exceptions (limits, bad characters) not wrapped by Jackson.
            throw syntaxError(file, e);
        }
    }

    private static final class Builder {
        private final String file;
        private final YAMLParser parser;
        private final Map<String, Node> anchors = new HashMap<>();
        /** Each anchored node's weight: the nodes an alias to it stands for. */
        private final Map<Node, Long> weights = new IdentityHashMap<>();
        private final long maxNodes;
        long built;
        /** While a merge key's value is read: its aliases are charged by the entries the merge copies. */
        private boolean merging;

        Builder(String file, YAMLParser parser, long maxNodes) {
            this.file = file;
            this.parser = parser;
            this.maxNodes = maxNodes;
        }

        /** Counts {@code nodes} more built at {@code at}; past the budget, the file is in error there. */
        private void spend(long nodes, Position at, String path) throws WorkflowException {
            built = nodes > maxNodes - built ? maxNodes + 1 : built + nodes;
            if (built > maxNodes) {
                throw new WorkflowException(file, at.line(), at.column(), path, OVER_BUDGET + maxNodes
                        + " YAML nodes (aliases and merge keys count what they copy); a workflow needs far fewer");
            }
        }

        /** Reads the value whose first token is current. */
        Node value(String path, int depth) throws IOException, WorkflowException {
            Position at = position(parser.currentTokenLocation());
            if (depth > MAX_DEPTH) {
                throw new WorkflowException(file, at.line(), at.column(), path,
                        "nested deeper than " + MAX_DEPTH + " levels");
            }
            JsonToken token = parser.currentToken();
            if (parser.isCurrentAlias()) {
                String name = parser.getText();
                Node target = anchors.get(name);
                if (target == null) {
                    throw new WorkflowException(file, at.line(), at.column(), path,
                            "alias '*" + name + "' names no anchor defined before it");
                }
                spend(merging ? 1 : weights.getOrDefault(target, 1L), at, path);
                return target.movedTo(at);
            }
            String anchor = parser.getObjectId();
            long before = built;
            spend(1, at, path);
            Node node = switch (token) {
                case START_OBJECT -> map(path, at, depth);
                case START_ARRAY -> list(path, at, depth);
                case VALUE_STRING -> new Scalar(Kind.STRING, parser.getText(), at);
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> new Scalar(Kind.NUMBER, parser.getText(), at);
                case VALUE_TRUE, VALUE_FALSE -> new Scalar(Kind.BOOLEAN, parser.getText(), at);
                case VALUE_NULL -> new Scalar(Kind.NULL, parser.getText(), at);
                default -> new Scalar(Kind.OTHER, parser.getText(), at);
            };
            if (anchor != null) {
                anchors.put(anchor, node);
                weights.put(node, built - before);
            }
            return node;
        }

        private MapNode map(String path, Position at, int depth) throws IOException, WorkflowException {
            Map<String, Entry> entries = new LinkedHashMap<>();
            Set<String> explicit = new HashSet<>();
            JsonToken token;
            while ((token = parser.nextToken()) != JsonToken.END_OBJECT) {
                if (token != JsonToken.FIELD_NAME) {
                    throw new IllegalStateException("YAML parser gave " + token + " where a key belongs");
                }
                String key = parser.currentName();
                Position keyAt = position(parser.currentTokenLocation());
                String childPath = child(path, key);
                parser.nextToken();
                boolean mergeKey = key.equals("<<");
                boolean outer = merging;
                merging = mergeKey;
                Node value;
                try {
                    value = value(childPath, depth + 1);
                } finally {
                    merging = outer;
                }
                if (mergeKey) {
                    merge(entries, value, childPath, keyAt);
                    continue;
                }
                if (!explicit.add(key)) {
                    throw new WorkflowException(file, keyAt.line(), keyAt.column(), childPath,
                            "given twice (first at line " + entries.get(key).keyAt().line() + ")");
                }
                entries.remove(key); // an explicit key overrides a merged one
                entries.put(key, new Entry(key, keyAt, value));
            }
            return new MapNode(entries, at);
        }

        private void merge(Map<String, Entry> entries, Node value, String path, Position at) throws WorkflowException {
            List<Node> sources = value instanceof ListNode list ? list.items() : List.of(value);
            for (Node source : sources) {
                if (!(source instanceof MapNode map)) {
                    throw new WorkflowException(file, source.at().line(), source.at().column(), path,
                            "the merge key '<<' takes a map or a list of maps, not " + source.kind().described);
                }
                spend(map.entries().size(), at, path); // each merged entry is a copy in this map
                for (Entry entry : map.entries().values()) {
                    entries.putIfAbsent(entry.key(), entry);
                }
            }
        }

        private ListNode list(String path, Position at, int depth) throws IOException, WorkflowException {
            List<Node> items = new ArrayList<>();
            while (parser.nextToken() != JsonToken.END_ARRAY) {
                items.add(value(path + "[" + items.size() + "]", depth + 1));
            }
            return new ListNode(items, at);
        }
    }

    static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    static Position position(JsonLocation location) {
        if (location == null || location.getLineNr() < 1) {
            return Position.START;
        }
        return new Position(location.getLineNr(), Math.max(1, location.getColumnNr()));
    }

    private static WorkflowException syntaxError(String file, Exception e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MarkedYAMLException marked && marked.getProblemMark() != null) {
                Mark mark = marked.getProblemMark();
                StringBuilder problem = new StringBuilder("YAML syntax: ").append(firstLine(marked.getProblem()));
                if (marked.getContext() != null && marked.getContextMark() != null) {
                    Mark context = marked.getContextMark();
                    problem.append(" (").append(firstLine(marked.getContext()))
                            .append(" started at line ").append(context.getLine() + 1)
                            .append(", column ").append(context.getColumn() + 1).append(')');
                }
                return new WorkflowException(file, mark.getLine() + 1, mark.getColumn() + 1, null, problem.toString());
            }
        }
        Position at = Position.START;
        String message = e.getMessage();
        if (e instanceof JacksonException jackson) {
            at = position(jackson.getLocation());
            message = jackson.getOriginalMessage();
        }
        if (message != null && message.startsWith("Expected a field name")) {
            message = "a key must be a plain value, not a list or a map";
        }
        return new WorkflowException(file, at.line(), at.column(), null, "YAML syntax: " + firstLine(message));
    }

    private static String firstLine(String message) {
        if (message == null || message.isBlank()) {
            return "not valid YAML";
        }
        String trimmed = message.strip();
        int newline = trimmed.indexOf('\n');
        return newline < 0 ? trimmed : trimmed.substring(0, newline).strip();
    }
}
