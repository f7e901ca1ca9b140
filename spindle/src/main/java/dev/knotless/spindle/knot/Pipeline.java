package dev.knotless.spindle.knot;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A {@code sh.tangled.pipeline} event as a knot sends it, parsed and checked: what triggered it
 * (a push, a pull request, or by hand) in which repository, and the workflows to run, each with its
 * YAML as the repository holds it.
 *
 * <p>The event is other people's input, read before anything is known of the repository: {@link
 * #parse} refuses anything malformed or out of bounds with a {@link PipelineException} naming the
 * field, and what it returns holds only values that are safe to put in a path, a ref, an AT-URI or
 * a log line (the workflows' YAML and the manual inputs' values aside, which are bounded but free
 * text). The trigger's repository must be on the knot the event came from, as tangled's own spindle
 * requires: a knot speaks for its own repositories only.
 *
 * @param knot the knot that sent it ({@code host} or {@code host:port}, lower case)
 * @param rkey the pipeline record's key (the frame's {@code rkey})
 */
public record Pipeline(String knot, String rkey, Trigger trigger, List<PipelineWorkflow> workflows) {

    public static final String NSID = "sh.tangled.pipeline";
    public static final int MAX_RKEY = 512;
    public static final int MAX_DID = 2048;
    public static final int MAX_REF = 1024;
    public static final int MAX_BRANCH = 255;
    public static final int MAX_WORKFLOWS = 64;
    public static final int MAX_RAW_BYTES = 1 << 20;
    public static final int MAX_ENGINE = 64;
    public static final int MAX_INPUTS = 64;
    public static final int MAX_INPUT_KEY = 128;
    public static final int MAX_INPUT_VALUE_BYTES = 64 << 10;

    private static final Pattern RKEY = Pattern.compile("[A-Za-z0-9._:~-]{1," + MAX_RKEY + "}");
    private static final Pattern DID = Pattern.compile("did:[a-z]+:[A-Za-z0-9._:%-]*[A-Za-z0-9._-]");
    private static final Pattern REPO_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,99}");
    private static final Pattern SHA = Pattern.compile("[0-9a-f]{40}|[0-9a-f]{64}");
    private static final Pattern WORKFLOW_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._ -]{0,127}");
    private static final Pattern ENGINE = Pattern.compile("[a-z0-9_-]{1," + MAX_ENGINE + "}");
    private static final Pattern INPUT_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0," + (MAX_INPUT_KEY - 1) + "}");
    private static final Pattern ACTION = Pattern.compile("[a-z][a-z_]{0,31}");

    public Pipeline {
        workflows = List.copyOf(workflows);
    }

    /** What started a pipeline. */
    public enum Kind {
        PUSH("push"), PULL_REQUEST("pull_request"), MANUAL("manual");

        private final String wire;

        Kind(String wire) {
            this.wire = wire;
        }

        /** As the event spells it. */
        public String wire() {
            return wire;
        }
    }

    /**
     * What started the pipeline, where. Exactly the part of {@code kind} is set: {@code push} for
     * {@link Kind#PUSH}, {@code pullRequest} for {@link Kind#PULL_REQUEST}, {@code manual} (its
     * inputs possibly empty) for {@link Kind#MANUAL}.
     */
    public record Trigger(Kind kind, RepoRef repo, @Nullable Push push, @Nullable PullRequest pullRequest,
            @Nullable Manual manual) {
    }

    /**
     * The repository: {@code did}'s repository {@code name} on {@code knot}. {@code defaultBranch}
     * is null when the event leaves it empty (knots' push events do).
     */
    public record RepoRef(String knot, String did, String name, @Nullable String defaultBranch) {
    }

    /** A push of {@code ref} from {@code oldSha} (all zeros for a new ref) to {@code newSha}. */
    public record Push(String ref, String newSha, String oldSha) {
    }

    /** A pull request from {@code sourceBranch} at {@code sourceSha} into {@code targetBranch}; {@code action} as the knot says ({@code create}, ...). */
    public record PullRequest(String sourceBranch, String targetBranch, String sourceSha, String action) {
    }

    /** A pipeline started by hand, with its inputs in the order given. */
    public record Manual(List<Input> inputs) {
        public Manual {
            inputs = List.copyOf(inputs);
        }
    }

    /** One manual input. */
    public record Input(String key, String value) {
    }

    /**
     * One workflow: {@code name} is its file's name (e.g. {@code build.yml}), {@code engine} the
     * engine it asks for (tangled's own is {@code nixery}), {@code raw} the file's YAML; the clone
     * options as the knot compiled them ({@code cloneDepth} 0 when it gives none).
     */
    public record PipelineWorkflow(String name, String engine, String raw, boolean cloneSkip, int cloneDepth,
            boolean cloneSubmodules) {
    }

    /** {@code at://did:web:<knot>/sh.tangled.pipeline/<rkey>}, spelt as tangled spells it (a port, if any, as is). */
    public String atUri() {
        return "at://did:web:" + knot + "/" + NSID + "/" + rkey;
    }

    /**
     * Parses the {@code event} of a {@code sh.tangled.pipeline} frame from {@code knot} whose record key is {@code rkey}.
     *
     * @throws PipelineException with a one-line reason when anything is missing, malformed or out of bounds
     */
    public static Pipeline parse(String knot, String rkey, JsonNode event) throws PipelineException {
        String host;
        try {
            host = KnotHost.check(knot);
        } catch (IllegalArgumentException e) {
            throw new PipelineException(e.getMessage());
        }
        if (!RKEY.matcher(rkey).matches() || rkey.equals(".") || rkey.equals("..")) {
            throw new PipelineException("a pipeline's rkey is 1 to " + MAX_RKEY + " of A-Z a-z 0-9 . _ : ~ -, not "
                    + Text.quote(rkey));
        }
        String where = "pipeline " + rkey + " of " + host;
        if (!event.isObject()) {
            throw new PipelineException(where + ": the event is not an object");
        }
        JsonNode meta = object(event, "triggerMetadata", where);
        Trigger trigger = trigger(meta, host, where + ": triggerMetadata");
        JsonNode list = event.get("workflows");
        if (list == null || !list.isArray()) {
            throw new PipelineException(where + ": workflows is " + (list == null ? "missing" : "not an array"));
        }
        if (list.size() > MAX_WORKFLOWS) {
            throw new PipelineException(where + ": " + list.size() + " workflows, over the " + MAX_WORKFLOWS + " allowed");
        }
        List<PipelineWorkflow> workflows = new ArrayList<>(list.size());
        Set<String> names = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            PipelineWorkflow w = workflow(list.get(i), where + ": workflows[" + i + "]");
            if (!names.add(w.name())) {
                throw new PipelineException(where + ": two workflows are named " + Text.quote(w.name()));
            }
            workflows.add(w);
        }
        return new Pipeline(host, rkey, trigger, workflows);
    }

    private static Trigger trigger(JsonNode meta, String knot, String where) throws PipelineException {
        String kindText = text(meta, "kind", where);
        Kind kind = null;
        for (Kind k : Kind.values()) {
            if (k.wire.equals(kindText)) {
                kind = k;
            }
        }
        if (kind == null) {
            throw new PipelineException(where + ".kind is push, pull_request or manual, not " + Text.quote(kindText));
        }
        RepoRef repo = repo(object(meta, "repo", where), knot, where + ".repo");
        Map<Kind, String> parts = Map.of(Kind.PUSH, "push", Kind.PULL_REQUEST, "pullRequest", Kind.MANUAL, "manual");
        for (Map.Entry<Kind, String> part : parts.entrySet()) {
            if (part.getKey() != kind && optionalObject(meta, part.getValue(), where) != null) {
                throw new PipelineException(where + ": a " + kind.wire + " trigger carries " + part.getValue());
            }
        }
        return switch (kind) {
            case PUSH -> new Trigger(kind, repo, push(object(meta, "push", where), where + ".push"), null, null);
            case PULL_REQUEST -> new Trigger(kind, repo, null, pullRequest(object(meta, "pullRequest", where), where + ".pullRequest"), null);
            case MANUAL -> new Trigger(kind, repo, null, null, manual(optionalObject(meta, "manual", where), where + ".manual"));
        };
    }

    private static RepoRef repo(JsonNode repo, String knot, String where) throws PipelineException {
        String repoKnot = text(repo, "knot", where);
        if (!repoKnot.toLowerCase(Locale.ROOT).equals(knot)) {
            throw new PipelineException(where + ".knot is " + Text.quote(repoKnot) + ", not the knot it came from (" + knot + ")");
        }
        String did = text(repo, "did", where);
        if (did.length() > MAX_DID || !DID.matcher(did).matches()) {
            throw new PipelineException(where + ".did is not a DID of at most " + MAX_DID + " characters: " + Text.quote(did));
        }
        String name = text(repo, "repo", where);
        if (!REPO_NAME.matcher(name).matches()) {
            throw new PipelineException(where + ".repo is 1 to 100 of A-Z a-z 0-9 . _ - (not first . _ -), not " + Text.quote(name));
        }
        String defaultBranch = optionalText(repo, "defaultBranch", where);
        if (defaultBranch != null && defaultBranch.isEmpty()) {
            defaultBranch = null;
        }
        if (defaultBranch != null) {
            RefNames.branch(defaultBranch, where + ".defaultBranch");
        }
        return new RepoRef(knot, did, name, defaultBranch);
    }

    private static Push push(JsonNode push, String where) throws PipelineException {
        String ref = RefNames.ref(text(push, "ref", where), where + ".ref");
        return new Push(ref, sha(push, "newSha", where), sha(push, "oldSha", where));
    }

    private static PullRequest pullRequest(JsonNode pr, String where) throws PipelineException {
        String source = RefNames.branch(text(pr, "sourceBranch", where), where + ".sourceBranch");
        String target = RefNames.branch(text(pr, "targetBranch", where), where + ".targetBranch");
        String sha = sha(pr, "sourceSha", where);
        String action = text(pr, "action", where);
        if (!ACTION.matcher(action).matches()) {
            throw new PipelineException(where + ".action is 1 to 32 of a-z _, not " + Text.quote(action));
        }
        return new PullRequest(source, target, sha, action);
    }

    private static Manual manual(@Nullable JsonNode manual, String where) throws PipelineException {
        if (manual == null) {
            return new Manual(List.of());
        }
        JsonNode inputs = manual.get("inputs");
        if (inputs == null || inputs.isNull()) {
            return new Manual(List.of());
        }
        if (!inputs.isArray()) {
            throw new PipelineException(where + ".inputs is not an array");
        }
        if (inputs.size() > MAX_INPUTS) {
            throw new PipelineException(where + ".inputs: " + inputs.size() + " inputs, over the " + MAX_INPUTS + " allowed");
        }
        List<Input> out = new ArrayList<>(inputs.size());
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < inputs.size(); i++) {
            String at = where + ".inputs[" + i + "]";
            JsonNode pair = inputs.get(i);
            if (!pair.isObject()) {
                throw new PipelineException(at + " is not an object");
            }
            String key = text(pair, "key", at);
            if (!INPUT_KEY.matcher(key).matches()) {
                throw new PipelineException(at + ".key is 1 to " + MAX_INPUT_KEY + " of A-Z a-z 0-9 _ (not first a digit), not "
                        + Text.quote(key));
            }
            if (!keys.add(key)) {
                throw new PipelineException(at + ".key " + key + " is given twice");
            }
            String value = text(pair, "value", at);
            if (Text.utf8Length(value) > MAX_INPUT_VALUE_BYTES) {
                throw new PipelineException(at + ".value is over " + MAX_INPUT_VALUE_BYTES + " bytes");
            }
            if (value.indexOf('\0') >= 0) {
                throw new PipelineException(at + ".value holds a NUL character");
            }
            out.add(new Input(key, value));
        }
        return new Manual(out);
    }

    private static PipelineWorkflow workflow(JsonNode w, String where) throws PipelineException {
        if (!w.isObject()) {
            throw new PipelineException(where + " is not an object");
        }
        String name = text(w, "name", where);
        if (!WORKFLOW_NAME.matcher(name).matches()) {
            throw new PipelineException(where + ".name is 1 to 128 of A-Z a-z 0-9 . _ - and space (not first . _ - space), not "
                    + Text.quote(name));
        }
        String engine = text(w, "engine", where);
        if (!ENGINE.matcher(engine).matches()) {
            throw new PipelineException(where + ".engine is 1 to " + MAX_ENGINE + " of a-z 0-9 _ -, not " + Text.quote(engine));
        }
        String raw = text(w, "raw", where);
        if (Text.utf8Length(raw) > MAX_RAW_BYTES) {
            throw new PipelineException(where + ".raw is over " + MAX_RAW_BYTES + " bytes");
        }
        if (raw.indexOf('\0') >= 0) {
            throw new PipelineException(where + ".raw holds a NUL character");
        }
        boolean skip = false;
        int depth = 0;
        boolean submodules = false;
        JsonNode clone = optionalObject(w, "clone", where);
        if (clone != null) {
            skip = bool(clone, "skip", where + ".clone");
            submodules = bool(clone, "submodules", where + ".clone");
            JsonNode d = clone.get("depth");
            if (d != null && !d.isNull()) {
                if (!d.isIntegralNumber() || !d.canConvertToInt() || d.intValue() < 0) {
                    throw new PipelineException(where + ".clone.depth is not a whole number from 0 to " + Integer.MAX_VALUE);
                }
                depth = d.intValue();
            }
        }
        return new PipelineWorkflow(name, engine, raw, skip, depth, submodules);
    }

    private static String sha(JsonNode parent, String field, String where) throws PipelineException {
        String sha = text(parent, field, where);
        if (!SHA.matcher(sha).matches()) {
            throw new PipelineException(where + "." + field + " is not 40 or 64 lowercase hex digits: " + Text.quote(sha));
        }
        return sha;
    }

    private static JsonNode object(JsonNode parent, String field, String where) throws PipelineException {
        return present(optionalObject(parent, field, where), field, where);
    }

    private static @Nullable JsonNode optionalObject(JsonNode parent, String field, String where) throws PipelineException {
        return optional(parent, field, where, JsonNode::isObject, "an object");
    }

    private static String text(JsonNode parent, String field, String where) throws PipelineException {
        return present(optionalText(parent, field, where), field, where);
    }

    private static @Nullable String optionalText(JsonNode parent, String field, String where) throws PipelineException {
        JsonNode n = optional(parent, field, where, JsonNode::isTextual, "a string");
        return n == null ? null : n.textValue();
    }

    private static boolean bool(JsonNode parent, String field, String where) throws PipelineException {
        JsonNode n = optional(parent, field, where, JsonNode::isBoolean, "true or false");
        return n != null && n.booleanValue();
    }

    /** The field's value; null when it is absent or JSON null, refused when it is not {@code expected}. */
    private static @Nullable JsonNode optional(JsonNode parent, String field, String where, Predicate<JsonNode> is,
            String expected) throws PipelineException {
        JsonNode n = parent.get(field);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!is.test(n)) {
            throw new PipelineException(where + "." + field + " is not " + expected);
        }
        return n;
    }

    private static <T> T present(@Nullable T value, String field, String where) throws PipelineException {
        if (value == null) {
            throw new PipelineException(where + "." + field + " is missing");
        }
        return value;
    }
}
