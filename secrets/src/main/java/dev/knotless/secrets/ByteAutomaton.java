package dev.knotless.secrets;

import java.util.Arrays;
import java.util.List;

/**
 * Aho–Corasick over bytes, with a Wu–Manber skip table in front. After each input byte the
 * automaton knows the longest pattern that ends there and how many trailing bytes could still
 * begin a match; the skip table lets a scan jump over text where no pattern can begin.
 *
 * <p>Layout, for speed and bounded memory. Bytes are first mapped to classes (bytes that occur in
 * no pattern share class 0), which shrinks every row to the patterns' alphabet. States are
 * numbered breadth-first, so shallow states come first; the shallow levels that fit in {@link
 * #DENSE_ENTRY_BUDGET} get a full row of resolved transitions in {@link #table}. Deeper states,
 * reached only while the input really follows a pattern, keep their few trie edges and a failure
 * link, and are numbered depth-first so that following one pattern reads memory sequentially.
 *
 * <p>A scan carries a state <em>code</em>: for a dense state, the offset of its row in {@link
 * #table} (so the next code is {@code table[code + class]}); for a sparse state, a number at or
 * above {@link #denseLimit}. A transition whose target ends a pattern yields the code's
 * complement ({@code ~code}, negative), so the scan tests for a match with one sign check.
 *
 * <p>The skip table is Wu–Manber's: for a window as long as the shortest pattern (at most {@link
 * #MAX_WINDOW}), the hash of its last {@link #BLOCK} bytes gives how far the window can move
 * before a pattern could start inside it. Hash collisions only shorten skips, never lengthen them.
 *
 * <p>Immutable and thread-safe once built; the scanning state lives with the caller.
 */
final class ByteAutomaton {

    /** Dense rows may use at most this many table entries (256 KiB): the levels a scan visits often. */
    static final int DENSE_ENTRY_BUDGET = 1 << 16;
    /** The root's code. */
    static final int START = 0;
    /** Every pattern is at least this long; a scan hands over to skipping below this depth. */
    static final int PREFIX = 3;
    /** Bytes per skip-table block. */
    static final int BLOCK = 3;
    static final int MAX_WINDOW = 64;
    private static final int SKIP_BITS = 15;

    /** Byte (0–255) to class. */
    final int[] classOf;
    /** Dense transitions: {@code table[code + class]} is the next code, complemented on a match. */
    final int[] table;
    /** Codes below this are dense rows; codes from it up are sparse states. */
    final int denseLimit;
    /**
     * For sparse states, by {@code code - denseLimit}: the class of the first child, shifted left
     * one bit, plus 1 when that child ends a pattern; -1 without children. Numbered depth-first,
     * the first child's code is {@code code + 1}, so following a pattern needs no other lookup.
     */
    final int[] chain;
    /**
     * {@code min(depth, PREFIX)} by code: how many trailing bytes the state has matched, when fewer
     * than {@link #PREFIX}. Indexed by code; entries between dense rows are unused.
     */
    final byte[] shallowDepth;
    /**
     * The skip scan's window: the shortest pattern's length, at most {@link #MAX_WINDOW}. Every
     * pattern's first {@code window} bytes are what the skip table knows.
     */
    final int window;
    /**
     * Wu–Manber skip table, indexed by {@link #blockHash} of the last {@link #BLOCK} bytes of a
     * window: how far the window may move right before any pattern could start in it. Zero means
     * a pattern may start at the window's first byte.
     */
    final byte[] skip;
    final int maxPatternLength;
    final int patternCount;

    private final int classes;
    private final int denseCount;
    /** Per state id: */
    private final int[] fail;
    private final int[] depth;
    private final int[] longest;
    /** Edges of sparse states: {@code edgeStart[id] .. edgeStart[id + 1]} index the two arrays below. */
    private final int[] edgeStart;
    private final int[] edgeClass;
    private final int[] edgeTarget;

    /** Builds the automaton of {@code patterns}; each must be at least {@link #PREFIX} bytes long. */
    ByteAutomaton(List<byte[]> patterns) {
        this(patterns, DENSE_ENTRY_BUDGET);
    }

    /** As above, with dense rows limited to {@code denseEntryBudget} entries (tests use tiny ones). */
    ByteAutomaton(List<byte[]> patterns, int denseEntryBudget) {
        // 1. Byte classes.
        int[] classOfByte = new int[256];
        int classCount = 1;
        int capacity = 1;
        int maxLength = 0;
        for (byte[] p : patterns) {
            if (p.length < PREFIX) {
                throw new IllegalArgumentException("pattern shorter than " + PREFIX + " bytes");
            }
            capacity += p.length;
            maxLength = Math.max(maxLength, p.length);
            for (byte b : p) {
                if (classOfByte[b & 0xFF] == 0) {
                    classOfByte[b & 0xFF] = classCount++;
                }
            }
        }

        // 2. The trie, as first-child / next-sibling lists over classes, in insertion numbering.
        int[] firstChild = new int[capacity];
        int[] nextSibling = new int[capacity];
        int[] label = new int[capacity];
        int[] terminal = new int[capacity];
        Arrays.fill(firstChild, -1);
        Arrays.fill(nextSibling, -1);
        int nodes = 1;
        for (byte[] p : patterns) {
            int node = 0;
            for (byte b : p) {
                int c = classOfByte[b & 0xFF];
                int child = childOf(firstChild, nextSibling, label, node, c);
                if (child < 0) {
                    child = nodes++;
                    label[child] = c;
                    nextSibling[child] = firstChild[node];
                    firstChild[node] = child;
                }
                node = child;
            }
            terminal[node] = p.length;
        }

        // 3. Breadth-first order; depth, failure link and longest match per trie node.
        int[] order = new int[nodes];
        int[] depthOfNode = new int[nodes];
        int[] failOfNode = new int[nodes];
        int[] longestOfNode = new int[nodes];
        int tail = 1;
        for (int head = 0; head < tail; head++) {
            int u = order[head];
            for (int child = firstChild[u]; child >= 0; child = nextSibling[child]) {
                order[tail++] = child;
                depthOfNode[child] = depthOfNode[u] + 1;
                int target = 0;
                if (u != 0) {
                    for (int f = failOfNode[u]; ; f = failOfNode[f]) {
                        int next = childOf(firstChild, nextSibling, label, f, label[child]);
                        if (next >= 0) {
                            target = next;
                            break;
                        }
                        if (f == 0) {
                            break;
                        }
                    }
                }
                failOfNode[child] = target;
                longestOfNode[child] = terminal[child] != 0 ? terminal[child] : longestOfNode[target];
            }
        }

        // 4. Ids: the shallow levels that fit in the budget, breadth-first, get dense rows; the
        //    deeper nodes are numbered depth-first, so that a pattern's chain of states is
        //    contiguous in memory and following it reads sequentially.
        int maxDense = Math.max(1, denseEntryBudget / classCount);
        int dense = 1;
        for (int k = 1; k < nodes && k < maxDense; k++) {
            if (k == nodes - 1 || depthOfNode[order[k + 1]] != depthOfNode[order[k]]) {
                dense = k + 1;
            }
        }
        int[] idOfNode = new int[nodes];
        for (int k = 0; k < dense; k++) {
            idOfNode[order[k]] = k;
        }
        int nextId = dense;
        int denseDepth = depthOfNode[order[dense - 1]];
        int[] stack = new int[nodes];
        for (int k = 0; k < dense; k++) {
            int u = order[k];
            if (depthOfNode[u] != denseDepth) {
                continue;
            }
            int top = 0;
            top = pushChildren(firstChild, nextSibling, u, stack, top);
            while (top > 0) {
                int v = stack[--top];
                idOfNode[v] = nextId++;
                top = pushChildren(firstChild, nextSibling, v, stack, top);
            }
        }
        int[] depthOf = new int[nodes];
        int[] failOf = new int[nodes];
        int[] longestOf = new int[nodes];
        for (int u = 0; u < nodes; u++) {
            int id = idOfNode[u];
            depthOf[id] = depthOfNode[u];
            failOf[id] = idOfNode[failOfNode[u]];
            longestOf[id] = longestOfNode[u];
        }
        this.classes = classCount;
        this.denseCount = dense;
        this.denseLimit = dense * classCount;
        this.fail = failOf;
        this.depth = depthOf;
        this.longest = longestOf;

        // 5. Edge lists for the sparse states, in id order (their targets may be dense or sparse).
        int[] nodeOfId = new int[nodes];
        for (int u = 0; u < nodes; u++) {
            nodeOfId[idOfNode[u]] = u;
        }
        int[] starts = new int[nodes + 1];
        int edges = 0;
        for (int id = 0; id < nodes; id++) {
            starts[id] = edges;
            if (id >= dense) {
                for (int c = firstChild[nodeOfId[id]]; c >= 0; c = nextSibling[c]) {
                    edges++;
                }
            }
        }
        starts[nodes] = edges;
        int[] edgeClasses = new int[edges];
        int[] targets = new int[edges];
        for (int id = dense; id < nodes; id++) {
            int e = starts[id];
            for (int c = firstChild[nodeOfId[id]]; c >= 0; c = nextSibling[c]) {
                edgeClasses[e] = label[c];
                targets[e] = flagged(idOfNode[c]);
                e++;
            }
        }
        this.edgeStart = starts;
        this.edgeClass = edgeClasses;
        this.edgeTarget = targets;
        int[] chains = new int[nodes - dense];
        for (int id = dense; id < nodes; id++) {
            int first = firstChild[nodeOfId[id]];
            if (first < 0) {
                chains[id - dense] = -1;
            } else {
                if (idOfNode[first] != id + 1) {
                    throw new AssertionError("depth-first numbering broken at " + id);
                }
                chains[id - dense] = label[first] << 1 | (longestOf[id + 1] != 0 ? 1 : 0);
            }
        }
        this.chain = chains;

        // 6. Dense rows, breadth-first: a state's row is its failure state's row (shallower, so
        //    already built) with its own edges laid over.
        int[] rows = new int[denseLimit];
        for (int id = 0; id < dense; id++) {
            int row = id * classCount;
            if (id != 0) {
                System.arraycopy(rows, failOf[id] * classCount, rows, row, classCount);
            }
            for (int c = firstChild[nodeOfId[id]]; c >= 0; c = nextSibling[c]) {
                rows[row + label[c]] = flagged(idOfNode[c]);
            }
        }
        this.table = rows;
        this.classOf = classOfByte;

        // 7. The skip table and the shallow depths that let a scan hand over to it.
        int minLength = Integer.MAX_VALUE;
        for (byte[] p : patterns) {
            minLength = Math.min(minLength, p.length);
        }
        int m = Math.min(minLength, MAX_WINDOW);
        byte[] skips = new byte[1 << SKIP_BITS];
        Arrays.fill(skips, (byte) (m - BLOCK + 1));
        for (byte[] p : patterns) {
            for (int j = BLOCK - 1; j < m; j++) {
                int h = blockHash(p[j - 2], p[j - 1], p[j]); // BLOCK == 3
                skips[h] = (byte) Math.min(skips[h], m - 1 - j);
            }
        }
        byte[] shallow = new byte[denseLimit + (nodes - dense)];
        Arrays.fill(shallow, (byte) PREFIX);
        for (int id = 0; id < nodes; id++) {
            shallow[codeOf(id)] = (byte) Math.min(depthOf[id], PREFIX);
        }
        this.window = m;
        this.skip = skips;
        this.shallowDepth = shallow;
        this.maxPatternLength = maxLength;
        this.patternCount = patterns.size();
    }

    /** A hash of three bytes into the skip table. */
    static int blockHash(byte b0, byte b1, byte b2) {
        return (((b0 & 0xFF) << 16 | (b1 & 0xFF) << 8 | (b2 & 0xFF)) * 0x9E3779B1) >>> (32 - SKIP_BITS);
    }

    /** Pushes {@code node}'s children so that its first child is popped first; returns the new top. */
    private static int pushChildren(int[] firstChild, int[] nextSibling, int node, int[] stack, int top) {
        int first = top;
        for (int c = firstChild[node]; c >= 0; c = nextSibling[c]) {
            stack[top++] = c;
        }
        for (int i = first, j = top - 1; i < j; i++, j--) {
            int t = stack[i];
            stack[i] = stack[j];
            stack[j] = t;
        }
        return top;
    }

    private static int childOf(int[] firstChild, int[] nextSibling, int[] label, int node, int c) {
        for (int child = firstChild[node]; child >= 0; child = nextSibling[child]) {
            if (label[child] == c) {
                return child;
            }
        }
        return -1;
    }

    private int codeOf(int id) {
        return id < denseCount ? id * classes : denseLimit + (id - denseCount);
    }

    private int idOf(int code) {
        return code < denseLimit ? code / classes : denseCount + (code - denseLimit);
    }

    /** The code of {@code id}, complemented when a pattern ends there. */
    private int flagged(int id) {
        int code = codeOf(id);
        return longest[id] != 0 ? ~code : code;
    }

    /** The next code from a sparse state's {@code code} on byte class {@code c}; complemented on a match. */
    int next(int code, int c) {
        int id = idOf(code);
        while (id >= denseCount) {
            for (int e = edgeStart[id], end = edgeStart[id + 1]; e < end; e++) {
                if (edgeClass[e] == c) {
                    return edgeTarget[e];
                }
            }
            id = fail[id];
        }
        return table[id * classes + c];
    }

    /** The length of the longest pattern ending in the state {@code code} (not complemented), or 0. */
    int longestAt(int code) {
        return longest[idOf(code)];
    }

    /** How many trailing bytes the state {@code code} has matched: a later match may start among them. */
    int depthAt(int code) {
        return depth[idOf(code)];
    }

    int stateCount() {
        return depth.length;
    }
}
