package dev.knotless.spindle.knot;

import static dev.knotless.spindle.knot.PipelineEvents.NEW_SHA;
import static dev.knotless.spindle.knot.PipelineEvents.SOURCE_SHA;
import static dev.knotless.spindle.knot.PipelineEvents.ZEROS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PipelineTest {

    private static final String KNOT = "knot.example.com";
    private static final String RKEY = "3lbmrd7ytxs2a";

    @Test
    void aPushPipelineIsParsedWhole() throws PipelineException {
        Pipeline p = Pipeline.parse(KNOT, RKEY, PipelineEvents.push(KNOT));

        assertThat(p.knot()).isEqualTo(KNOT);
        assertThat(p.rkey()).isEqualTo(RKEY);
        assertThat(p.atUri()).isEqualTo("at://did:web:knot.example.com/sh.tangled.pipeline/3lbmrd7ytxs2a");
        assertThat(p.trigger().kind()).isEqualTo(Pipeline.Kind.PUSH);
        assertThat(p.trigger().repo()).isEqualTo(new Pipeline.RepoRef(KNOT, "did:plc:alice7abcdefghijklmnop", "hello", null));
        assertThat(p.trigger().push()).isEqualTo(new Pipeline.Push("refs/heads/main", NEW_SHA, ZEROS));
        assertThat(p.trigger().pullRequest()).isNull();
        assertThat(p.trigger().manual()).isNull();
        assertThat(p.workflows()).containsExactly(new Pipeline.PipelineWorkflow("build.yml", "knotless",
                "when:\n  - event: [push]\nsteps:\n  - name: test\n    command: make test\n", false, 1, true));
    }

    @Test
    void aPullRequestPipelineIsParsed() throws PipelineException {
        Pipeline p = Pipeline.parse(KNOT, RKEY, PipelineEvents.pullRequest(KNOT));

        assertThat(p.trigger().kind()).isEqualTo(Pipeline.Kind.PULL_REQUEST);
        assertThat(p.trigger().repo()).isEqualTo(new Pipeline.RepoRef(KNOT, "did:web:alice.example.com", "hello.js", "main"));
        assertThat(p.trigger().pullRequest()).isEqualTo(new Pipeline.PullRequest("feature/x", "main", SOURCE_SHA, "create"));
        assertThat(p.trigger().push()).isNull();
        assertThat(p.workflows()).extracting(Pipeline.PipelineWorkflow::name, Pipeline.PipelineWorkflow::engine,
                Pipeline.PipelineWorkflow::cloneDepth).containsExactly(
                        org.assertj.core.groups.Tuple.tuple("test.yaml", "nixery", 50),
                        org.assertj.core.groups.Tuple.tuple("lint.yml", "knotless", 0));
    }

    @Test
    void aManualPipelineKeepsItsInputsInOrder() throws PipelineException {
        Pipeline p = Pipeline.parse(KNOT, RKEY, PipelineEvents.manual(KNOT));

        assertThat(p.trigger().kind()).isEqualTo(Pipeline.Kind.MANUAL);
        assertThat(p.trigger().manual()).isNotNull();
        assertThat(p.trigger().manual().inputs()).containsExactly(
                new Pipeline.Input("TARGET", "staging"), new Pipeline.Input("dry_run", "true\nor not"));
        assertThat(p.workflows().get(0).cloneSkip()).isTrue();
    }

    @Test
    void aManualPipelineWithoutInputsHasNone() throws PipelineException {
        ObjectNode e = PipelineEvents.manual(KNOT);
        meta(e).remove("manual");

        assertThat(Pipeline.parse(KNOT, RKEY, e).trigger().manual()).isEqualTo(new Pipeline.Manual(java.util.List.of()));
    }

    @Test
    void aKnotWithAPortAndCapitalsIsKeptInLowerCaseAndAShaOf64IsTaken() throws PipelineException {
        ObjectNode e = PipelineEvents.push("Knot.Example.com:8443");
        ((ObjectNode) meta(e).get("push")).put("newSha", "a".repeat(64));

        Pipeline p = Pipeline.parse("knot.example.COM:8443", RKEY, e);

        assertThat(p.knot()).isEqualTo("knot.example.com:8443");
        assertThat(p.atUri()).isEqualTo("at://did:web:knot.example.com:8443/sh.tangled.pipeline/" + RKEY);
        assertThat(p.trigger().push().newSha()).hasSize(64);
    }

    @Test
    void sixtyFourWorkflowsAreTakenAndAnEmptyListToo() throws PipelineException {
        ObjectNode e = PipelineEvents.push(KNOT);
        ArrayNode list = e.putArray("workflows");
        for (int i = 0; i < Pipeline.MAX_WORKFLOWS; i++) {
            list.addObject().put("name", "w" + i + ".yml").put("engine", "knotless").put("raw", "");
        }
        assertThat(Pipeline.parse(KNOT, RKEY, e).workflows()).hasSize(64);

        e.putArray("workflows");
        assertThat(Pipeline.parse(KNOT, RKEY, e).workflows()).isEmpty();
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                refused("an event of other fields", e -> e.removeAll().put("x", 1), "triggerMetadata is missing"),
                refused("no triggerMetadata", e -> e.remove("triggerMetadata"), "triggerMetadata is missing"),
                refused("triggerMetadata not an object", e -> e.put("triggerMetadata", "push"), "triggerMetadata is not an object"),
                refused("an unknown kind", e -> meta(e).put("kind", "cron"), "kind is push, pull_request or manual"),
                refused("a kind that is not a string", e -> meta(e).put("kind", 1), "kind is not a string"),
                refused("push without its part", e -> meta(e).remove("push"), "push is missing"),
                refused("push with a pullRequest part", e -> meta(e).set("pullRequest", meta(PipelineEvents.pullRequest(KNOT)).get("pullRequest")),
                        "a push trigger carries pullRequest"),
                refused("push with a manual part", e -> meta(e).putObject("manual"), "a push trigger carries manual"),
                refused("no repo", e -> meta(e).remove("repo"), "repo is missing"),
                refused("a repo on another knot", e -> repo(e).put("knot", "evil.example.com"), "not the knot it came from"),
                refused("a did without did:", e -> repo(e).put("did", "plc:alice"), "did is not a DID"),
                refused("a did too long", e -> repo(e).put("did", "did:plc:" + "a".repeat(2041)), "did is not a DID"),
                refused("a did with a slash", e -> repo(e).put("did", "did:plc:a/b"), "did is not a DID"),
                refused("a repo name with ..", e -> repo(e).put("repo", "../etc"), "repo is 1 to 100"),
                refused("a repo name starting with .", e -> repo(e).put("repo", ".git"), "repo is 1 to 100"),
                refused("a repo name of 101", e -> repo(e).put("repo", "a".repeat(101)), "repo is 1 to 100"),
                refused("a repo name with a space", e -> repo(e).put("repo", "a b"), "repo is 1 to 100"),
                refused("a default branch with ..", e -> repo(e).put("defaultBranch", "a..b"), "defaultBranch holds .."),
                refused("a sha in capitals", e -> push(e).put("newSha", NEW_SHA.toUpperCase(java.util.Locale.ROOT)), "newSha is not 40 or 64"),
                refused("a sha of 39", e -> push(e).put("oldSha", ZEROS.substring(1)), "oldSha is not 40 or 64"),
                refused("no newSha", e -> push(e).remove("newSha"), "newSha is missing"),
                refused("a ref outside refs/", e -> push(e).put("ref", "heads/main"), "ref is refs/"),
                refused("a ref with ..", e -> push(e).put("ref", "refs/heads/../../x"), "ref holds .."),
                refused("a ref with a control character", e -> push(e).put("ref", "refs/heads/a\u0001b"), "ref holds a control character"),
                refused("a ref with a newline", e -> push(e).put("ref", "refs/heads/a\nb"), "ref holds a control character"),
                refused("a ref too long", e -> push(e).put("ref", "refs/heads/" + "a".repeat(1014)), "ref is refs/"),
                refused("a ref ending .lock", e -> push(e).put("ref", "refs/heads/main.lock"), ".lock"),
                refused("a ref with a space", e -> push(e).put("ref", "refs/heads/a b"), "ref holds ' '"),
                refused("a pull request without its part", e -> meta(e).put("kind", "pull_request"), "a pull_request trigger carries push"),
                refused("a pull request with no part", e -> {
                    meta(e).put("kind", "pull_request");
                    meta(e).remove("push");
                }, "pullRequest is missing"),
                refused("a pull request's source branch starting -", e -> {
                    e.setAll(PipelineEvents.pullRequest(KNOT));
                    ((ObjectNode) meta(e).get("pullRequest")).put("sourceBranch", "-x");
                }, "sourceBranch is a branch name"),
                refused("a pull request's target branch with ~", e -> {
                    e.setAll(PipelineEvents.pullRequest(KNOT));
                    ((ObjectNode) meta(e).get("pullRequest")).put("targetBranch", "main~1");
                }, "targetBranch holds '~'"),
                refused("a pull request's action in capitals", e -> {
                    e.setAll(PipelineEvents.pullRequest(KNOT));
                    ((ObjectNode) meta(e).get("pullRequest")).put("action", "Create");
                }, "action is 1 to 32"),
                refused("no workflows", e -> e.remove("workflows"), "workflows is missing"),
                refused("workflows not an array", e -> e.putObject("workflows"), "workflows is not an array"),
                refused("65 workflows", e -> {
                    ArrayNode list = e.putArray("workflows");
                    for (int i = 0; i < 65; i++) {
                        list.addObject().put("name", "w" + i + ".yml").put("engine", "knotless").put("raw", "");
                    }
                }, "65 workflows, over the 64 allowed"),
                refused("a workflow that is null", e -> ((ArrayNode) e.get("workflows")).addNull(), "workflows[1] is not an object"),
                refused("two workflows of one name", e -> ((ArrayNode) e.get("workflows")).add(e.get("workflows").get(0).deepCopy()),
                        "two workflows are named 'build.yml'"),
                refused("a workflow named with a slash", e -> workflow(e).put("name", "../build.yml"), "name is 1 to 128"),
                refused("a workflow name of 129", e -> workflow(e).put("name", "a".repeat(129)), "name is 1 to 128"),
                refused("an engine in capitals", e -> workflow(e).put("engine", "Nixery"), "engine is 1 to 64"),
                refused("an engine of 65", e -> workflow(e).put("engine", "a".repeat(65)), "engine is 1 to 64"),
                refused("no raw", e -> workflow(e).remove("raw"), "raw is missing"),
                refused("raw over 1 MiB", e -> workflow(e).put("raw", "a".repeat((1 << 20) + 1)), "raw is over 1048576 bytes"),
                refused("raw over 1 MiB in UTF-8", e -> workflow(e).put("raw", "é".repeat((1 << 19) + 1)), "raw is over 1048576 bytes"),
                refused("raw with a NUL", e -> workflow(e).put("raw", "a\0b"), "raw holds a NUL"),
                refused("a negative clone depth", e -> ((ObjectNode) workflow(e).get("clone")).put("depth", -1), "clone.depth is not a whole number"),
                refused("a fractional clone depth", e -> ((ObjectNode) workflow(e).get("clone")).put("depth", 1.5), "clone.depth is not a whole number"),
                refused("a clone skip that is a string", e -> ((ObjectNode) workflow(e).get("clone")).put("skip", "yes"), "clone.skip is not true or false"),
                refused("65 manual inputs", e -> {
                    e.setAll(PipelineEvents.manual(KNOT));
                    ArrayNode inputs = ((ObjectNode) meta(e).get("manual")).putArray("inputs");
                    for (int i = 0; i < 65; i++) {
                        inputs.addObject().put("key", "K" + i).put("value", "v");
                    }
                }, "65 inputs, over the 64 allowed"),
                refused("a manual input key starting with a digit", e -> {
                    e.setAll(PipelineEvents.manual(KNOT));
                    ((ObjectNode) meta(e).get("manual").get("inputs").get(0)).put("key", "1TARGET");
                }, "key is 1 to 128"),
                refused("a manual input key of 129", e -> {
                    e.setAll(PipelineEvents.manual(KNOT));
                    ((ObjectNode) meta(e).get("manual").get("inputs").get(0)).put("key", "K".repeat(129));
                }, "key is 1 to 128"),
                refused("a manual input key given twice", e -> {
                    e.setAll(PipelineEvents.manual(KNOT));
                    ((ObjectNode) meta(e).get("manual").get("inputs").get(1)).put("key", "TARGET");
                }, "key TARGET is given twice"),
                refused("a manual input value over 64 KiB", e -> {
                    e.setAll(PipelineEvents.manual(KNOT));
                    ((ObjectNode) meta(e).get("manual").get("inputs").get(0)).put("value", "v".repeat((64 << 10) + 1));
                }, "value is over 65536 bytes"),
                refused("a manual input without a value", e -> {
                    e.setAll(PipelineEvents.manual(KNOT));
                    ((ObjectNode) meta(e).get("manual").get("inputs").get(0)).remove("value");
                }, "value is missing"),
                refused("manual inputs not an array", e -> {
                    e.setAll(PipelineEvents.manual(KNOT));
                    ((ObjectNode) meta(e).get("manual")).put("inputs", "TARGET=x");
                }, "inputs is not an array"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void eachMalformedOrHostilePartIsRefusedWithAReason(String what, Consumer<ObjectNode> spoil, String reason) {
        ObjectNode e = PipelineEvents.push(KNOT);
        spoil.accept(e);

        assertThatThrownBy(() -> Pipeline.parse(KNOT, RKEY, e))
                .isInstanceOf(PipelineException.class)
                .hasMessageContaining(reason)
                .satisfies(x -> assertThat(x.getMessage()).doesNotContain("\n").hasSizeLessThan(400));
    }

    @Test
    void anEventThatIsNotAnObjectIsRefused() {
        assertThatThrownBy(() -> Pipeline.parse(KNOT, RKEY, PipelineEvents.JSON.getNodeFactory().textNode("push")))
                .isInstanceOf(PipelineException.class).hasMessageContaining("the event is not an object");
    }

    @Test
    void badRecordKeysAndKnotsAreRefused() {
        JsonNode e = PipelineEvents.push(KNOT);
        for (String rkey : new String[] {"", "a/b", ".", "..", "a b", "a\u0000", "k".repeat(513), "é"}) {
            assertThatThrownBy(() -> Pipeline.parse(KNOT, rkey, e)).as(rkey)
                    .isInstanceOf(PipelineException.class).hasMessageContaining("rkey is 1 to 512");
        }
        for (String knot : new String[] {"", "https://knot.example.com", "knot.example.com/x", "knot..example.com", "user@knot",
                "knot.example.com:0", "knot.example.com:65536", "-knot.example.com"}) {
            assertThatThrownBy(() -> Pipeline.parse(knot, RKEY, e)).as(knot)
                    .isInstanceOf(PipelineException.class).hasMessageContaining("knot");
        }
    }

    @Test
    void aRefusalQuotesHostileTextOnOneShortLine() {
        ObjectNode e = PipelineEvents.push(KNOT);
        repo(e).put("repo", "evil\nline2" + "x".repeat(500));

        assertThatThrownBy(() -> Pipeline.parse(KNOT, RKEY, e))
                .hasMessageContaining("'evil line2xxx")
                .satisfies(x -> assertThat(x.getMessage()).doesNotContain("\n").hasSizeLessThan(300));
    }

    private static Arguments refused(String what, Consumer<ObjectNode> spoil, String reason) {
        return Arguments.of(what, spoil, reason);
    }

    private static ObjectNode meta(ObjectNode e) {
        return (ObjectNode) e.get("triggerMetadata");
    }

    private static ObjectNode repo(ObjectNode e) {
        return (ObjectNode) meta(e).get("repo");
    }

    private static ObjectNode push(ObjectNode e) {
        return (ObjectNode) meta(e).get("push");
    }

    private static ObjectNode workflow(ObjectNode e) {
        return (ObjectNode) e.get("workflows").get(0);
    }
}
