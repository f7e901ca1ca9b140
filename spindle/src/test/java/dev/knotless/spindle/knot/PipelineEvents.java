package dev.knotless.spindle.knot;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;

/** {@code sh.tangled.pipeline} events as a knot sends them. */
final class PipelineEvents {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String NEW_SHA = "8f0c2e6b5a1d4c3b2a190817263544536271809a";
    static final String SOURCE_SHA = "0123456789abcdef0123456789abcdef01234567";
    static final String ZEROS = "0000000000000000000000000000000000000000";

    private PipelineEvents() {
    }

    /** A push of main to {@code knot}'s did:plc:alice/hello, with one workflow, as a knot compiles it. */
    static ObjectNode push(String knot) {
        return parse("""
                {"$type": "sh.tangled.pipeline",
                 "triggerMetadata": {
                   "kind": "push",
                   "repo": {"knot": "%s", "did": "did:plc:alice7abcdefghijklmnop", "repo": "hello", "defaultBranch": ""},
                   "push": {"ref": "refs/heads/main", "newSha": "%s", "oldSha": "%s"}},
                 "workflows": [
                   {"name": "build.yml", "engine": "knotless", "clone": {"skip": false, "depth": 1, "submodules": true},
                    "raw": "when:\\n  - event: [push]\\nsteps:\\n  - name: test\\n    command: make test\\n"}]}
                """.formatted(knot, NEW_SHA, ZEROS));
    }

    static ObjectNode pullRequest(String knot) {
        return parse("""
                {"triggerMetadata": {
                   "kind": "pull_request",
                   "repo": {"knot": "%s", "did": "did:web:alice.example.com", "repo": "hello.js", "defaultBranch": "main"},
                   "pullRequest": {"sourceBranch": "feature/x", "targetBranch": "main", "sourceSha": "%s", "action": "create"}},
                 "workflows": [
                   {"name": "test.yaml", "engine": "nixery", "clone": {"skip": false, "depth": 50, "submodules": false}, "raw": "steps: []"},
                   {"name": "lint.yml", "engine": "knotless", "clone": null, "raw": "steps: []"}]}
                """.formatted(knot, SOURCE_SHA));
    }

    static ObjectNode manual(String knot) {
        return parse("""
                {"triggerMetadata": {
                   "kind": "manual",
                   "repo": {"knot": "%s", "did": "did:plc:alice7abcdefghijklmnop", "repo": "hello", "defaultBranch": "main"},
                   "manual": {"inputs": [{"key": "TARGET", "value": "staging"}, {"key": "dry_run", "value": "true\\nor not"}]}},
                 "workflows": [{"name": "deploy.yml", "engine": "knotless", "clone": {"skip": true, "depth": 0, "submodules": false},
                                "raw": "steps: []"}]}
                """.formatted(knot));
    }

    static ObjectNode parse(String json) {
        try {
            return (ObjectNode) JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
