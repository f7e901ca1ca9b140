package dev.knotless.plan.yaml;

import dev.knotless.plan.WorkflowException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.MappingStartEvent;
import org.yaml.snakeyaml.events.NodeEvent;
import org.yaml.snakeyaml.events.ScalarEvent;
import org.yaml.snakeyaml.events.SequenceStartEvent;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.parser.Parser;
import org.yaml.snakeyaml.parser.ParserImpl;
import org.yaml.snakeyaml.reader.StreamReader;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * One YAML document read into a tree whose every node and key knows the line and column it was
 * written at, so that a schema error can point at it.
 *
 * <p>Read from SnakeYAML's parser events (the parser under Jackson's YAML module), which carry
 * every node's position and anchor; Jackson's token stream reports no anchor on a scalar, and its
 * {@code JsonNode} keeps no locations. Beyond what the events give: duplicate keys are errors, anchors and aliases
 * are resolved (an alias node reports the alias's position; what it copies keeps the anchor's),
 * the merge key {@code <<} merges a map or a list of maps under the explicit keys, and a file must
 * hold exactly one document. Stateless; {@link #read} is safe to call from any thread.
 */
public final class YamlTree {

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

    private YamlTree() {}

    /** Where a node or key was written; lines and columns count from 1. */
    public record Position(int line, int column) {
        public static final Position START = new Position(1, 1);
    }

    /** What a node is, as errors describe it ("expected a list, got a map"). */
    public enum Kind {
        STRING("a string"),
        NUMBER("a number"),
        BOOLEAN("a boolean"),
        NULL("no value"),
        OTHER("a tagged value"),
        MAP("a map"),
        LIST("a list");

        private final String described;

        Kind(String described) {
            this.described = described;
        }

        /** As an error says it: {@code a map}, {@code no value}. */
        public String described() {
            return described;
        }
    }

    /** A node of the tree: it knows where it was written. */
    public sealed interface Node permits Scalar, MapNode, ListNode {
        Position at();

        Kind kind();

        Node movedTo(Position position);
    }

    /** A scalar; {@code text} is exactly as written ({@code 1.10} stays {@code 1.10}). */
    public record Scalar(Kind kind, String text, Position at) implements Node {
        @Override
        public Node movedTo(Position position) {
            return new Scalar(kind, text, position);
        }
    }

    /** A key of a map, where it was written, and its value. */
    public record Entry(String key, Position keyAt, Node value) {}

    /** Entries in the order written. */
    public record MapNode(Map<String, Entry> entries, Position at) implements Node {
        @Override
        public Kind kind() {
            return Kind.MAP;
        }

        @Override
        public Node movedTo(Position position) {
            return new MapNode(entries, position);
        }
    }

    /** Items in the order written. */
    public record ListNode(List<Node> items, Position at) implements Node {
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
    public static Node read(String file, String text) throws WorkflowException {
        return read(file, text, MAX_NODES).root();
    }

    /** A file's document and the nodes it built (aliases and merges counted as copies). */
    record Read(Node root, long nodes) {}

    /** As {@link #read(String, String)}, with at most {@code maxNodes} nodes built. */
    static Read read(String file, String text, long maxNodes) throws WorkflowException {
        try {
            Parser parser = new ParserImpl(new StreamReader(text), new LoaderOptions());
            Builder builder = new Builder(file, parser, maxNodes);
            parser.getEvent(); // the stream's start
            if (parser.checkEvent(Event.ID.StreamEnd)) {
                throw new WorkflowException(file, 1, 1, null, EMPTY);
            }
            parser.getEvent(); // the document's start
            Event first = parser.peekEvent();
            if (first instanceof ScalarEvent scalar && kindOf(scalar) == Kind.NULL) {
                Position at = position(first.getStartMark());
                throw new WorkflowException(file, at.line(), at.column(), null, EMPTY);
            }
            Node root = builder.value("", 0);
            parser.getEvent(); // the document's end
            if (parser.checkEvent(Event.ID.DocumentStart)) {
                Event second = parser.getEvent();
                Event next = parser.peekEvent();
                Position at = position(next instanceof NodeEvent ? next.getStartMark() : second.getStartMark());
                throw new WorkflowException(file, at.line(), at.column(), null,
                        "a second YAML document; a workflow file holds one ('---' starts another)");
            }
            return new Read(root, builder.built);
        } catch (RuntimeException e) {
            // SnakeYAML's exceptions (syntax, limits, bad characters) are all unchecked.
            throw syntaxError(file, e);
        }
    }

    private static final String EMPTY = "the file is empty; a workflow needs at least 'steps'";

    /**
     * What a scalar is, as Jackson's YAML module decides it (so kinds stay what they were): a
     * plain scalar by YAML 1.1's implicit types, except that only {@code true} and {@code false}
     * are booleans; a quoted one is a string; an explicit {@code !!int}, {@code !!float},
     * {@code !!bool}, {@code !!null} is that, {@code !!binary} is {@link Kind#OTHER}, any other tag a string.
     */
    static Kind kindOf(ScalarEvent scalar) {
        String value = scalar.getValue();
        String tag = scalar.getTag();
        if (tag == null || tag.equals("!")) {
            Tag implicit = RESOLVER.resolve(NodeId.scalar, value, scalar.getImplicit().canOmitTagInPlainScalar());
            if (implicit.equals(Tag.INT) || implicit.equals(Tag.FLOAT)) {
                return Kind.NUMBER;
            }
            if (implicit.equals(Tag.BOOL)) {
                return BOOLEAN.matcher(value).matches() ? Kind.BOOLEAN : Kind.STRING;
            }
            return implicit.equals(Tag.NULL) ? Kind.NULL : Kind.STRING;
        }
        String name = tag.startsWith(Tag.PREFIX) ? tag.substring(Tag.PREFIX.length()).split(",", 2)[0] : tag;
        return switch (name) {
            case "binary" -> Kind.OTHER;
            case "bool" -> BOOLEAN.matcher(value).matches() ? Kind.BOOLEAN : Kind.STRING;
            case "int", "float" -> Kind.NUMBER;
            case "null" -> Kind.NULL;
            default -> Kind.STRING;
        };
    }

    private static final Resolver RESOLVER = new Resolver();
    private static final Pattern BOOLEAN = Pattern.compile("true|True|TRUE|false|False|FALSE");

    /**
     * Builds nodes from SnakeYAML's parser events, read directly: they carry every node's anchor,
     * a scalar's included (Jackson's token stream reports anchors only on maps and lists).
     */
    private static final class Builder {
        private final String file;
        private final Parser parser;
        private final Map<String, Node> anchors = new HashMap<>();
        /** Each anchored node's weight: the nodes an alias to it stands for. */
        private final Map<Node, Long> weights = new IdentityHashMap<>();
        private final long maxNodes;
        long built;
        /** While a merge key's value is read: its aliases are charged by the entries the merge copies. */
        private boolean merging;

        Builder(String file, Parser parser, long maxNodes) {
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

        /** Reads the value whose event comes next. */
        Node value(String path, int depth) throws WorkflowException {
            Event event = parser.getEvent();
            Position at = position(event.getStartMark());
            if (depth > MAX_DEPTH) {
                throw new WorkflowException(file, at.line(), at.column(), path,
                        "nested deeper than " + MAX_DEPTH + " levels");
            }
            if (event instanceof AliasEvent alias) {
                String name = alias.getAnchor();
                Node target = anchors.get(name);
                if (target == null) {
                    throw new WorkflowException(file, at.line(), at.column(), path,
                            "alias '*" + name + "' names no anchor defined before it");
                }
                spend(merging ? 1 : weights.getOrDefault(target, 1L), at, path);
                return target.movedTo(at);
            }
            long before = built;
            spend(1, at, path);
            Node node = switch (event) {
                case MappingStartEvent m -> map(path, at, depth);
                case SequenceStartEvent l -> list(path, at, depth);
                case ScalarEvent scalar -> new Scalar(kindOf(scalar), scalar.getValue(), at);
                default -> throw new IllegalStateException("YAML parser gave " + event + " where a value belongs");
            };
            String anchor = ((NodeEvent) event).getAnchor();
            if (anchor != null) {
                anchors.put(anchor, node);
                weights.put(node, built - before);
            }
            return node;
        }

        private MapNode map(String path, Position at, int depth) throws WorkflowException {
            Map<String, Entry> entries = new LinkedHashMap<>();
            Set<String> explicit = new HashSet<>();
            while (!parser.checkEvent(Event.ID.MappingEnd)) {
                Event keyEvent = parser.getEvent();
                Position keyAt = position(keyEvent.getStartMark());
                if (!(keyEvent instanceof ScalarEvent keyScalar)) {
                    throw new WorkflowException(file, keyAt.line(), keyAt.column(), null,
                            "YAML syntax: a key must be a plain value, not a list, a map or an alias");
                }
                String key = keyScalar.getValue();
                String childPath = child(path, key);
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
            parser.getEvent();
            return new MapNode(entries, at);
        }

        private void merge(Map<String, Entry> entries, Node value, String path, Position at) throws WorkflowException {
            List<Node> sources = value instanceof ListNode list ? list.items() : List.of(value);
            for (Node source : sources) {
                if (!(source instanceof MapNode map)) {
                    throw new WorkflowException(file, source.at().line(), source.at().column(), path,
                            "the merge key '<<' takes a map or a list of maps, not " + source.kind().described());
                }
                spend(map.entries().size(), at, path); // each merged entry is a copy in this map
                for (Entry entry : map.entries().values()) {
                    entries.putIfAbsent(entry.key(), entry);
                }
            }
        }

        private ListNode list(String path, Position at, int depth) throws WorkflowException {
            List<Node> items = new ArrayList<>();
            while (!parser.checkEvent(Event.ID.SequenceEnd)) {
                items.add(value(path + "[" + items.size() + "]", depth + 1));
            }
            parser.getEvent();
            return new ListNode(items, at);
        }
    }

    /** The path of {@code key} within the map at {@code path}, as errors name fields: {@code steps[0].env.A}. */
    public static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    static Position position(Mark mark) {
        return mark == null ? Position.START : new Position(mark.getLine() + 1, mark.getColumn() + 1);
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
        return new WorkflowException(file, 1, 1, null, "YAML syntax: " + firstLine(e.getMessage()));
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
