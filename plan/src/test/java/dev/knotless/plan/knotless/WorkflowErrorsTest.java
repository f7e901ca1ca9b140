package dev.knotless.plan.knotless;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.knotless.plan.WorkflowException;
import org.junit.jupiter.api.Test;

/** Each kind of mistake names the file, line, column and field; lines and columns count from 1. */
class WorkflowErrorsTest {

    private static final String FILE = ".knotless/workflows/ci.yaml";

    private static WorkflowException error(String yaml) {
        WorkflowException e = catchThrowableOfType(WorkflowException.class, () -> new KnotlessDialect().parse(FILE, yaml));
        assertThat(e).as("an error for:%n%s", yaml).isNotNull();
        assertThat(e.getMessage()).doesNotContain("\n").startsWith(FILE + ":");
        return e;
    }

    private static void assertError(String yaml, int line, int column, String field, String problemStart) {
        WorkflowException e = error(yaml);
        assertThat(e.line()).as(e.getMessage()).isEqualTo(line);
        assertThat(e.column()).as(e.getMessage()).isEqualTo(column);
        assertThat(e.field()).as(e.getMessage()).isEqualTo(field);
        assertThat(e.problem()).as(e.getMessage()).startsWith(problemStart);
    }

    @Test
    void theMessageIsFileLineColumnFieldAndProblem() {
        WorkflowException e = error("""
                steps:
                  - run: make
                  - run: make test
                    timeout: soon
                """);
        assertThat(e.getMessage()).isEqualTo(FILE + ":4:14: field 'steps[1].timeout': "
                + "not a duration: 'soon' (use 90s, 10m, 1h, 1h30m or a whole number of seconds)");
    }

    @Test
    void anUnknownFieldPointsAtItsKeyAndSuggestsTheNearestName() {
        assertError("""
                name: x
                steps:
                  - run: make
                    tiemout: 5m
                """, 4, 5, "steps[0].tiemout", "unknown field (did you mean 'timeout'?); expected one of name, run, timeout, secrets");
        assertError("image: x\nsteps: [{run: a}]\nservice: [db]\n", 3, 1, "service", "unknown field (did you mean 'services'?)");
        assertError("on:\n  push:\n    branch: [main]\nsteps: [{run: a}]\n", 3, 5, "on.push.branch",
                "unknown field (did you mean 'branches'?)");
        assertError("resources:\n  cpus: 2\nsteps: [{run: a}]\n", 2, 3, "resources.cpus", "unknown field (did you mean 'cpu'?)");
    }

    @Test
    void wrongTypesPointAtTheValue() {
        assertError("name: [a, b]\nsteps: [{run: a}]", 1, 7, "name", "expected a name (a string), got a list");
        assertError("steps: {run: a}", 1, 8, "steps", "expected a list of steps, got a map");
        assertError("steps:\n  - make\n", 2, 5, "steps[0]", "expected a step, a map with at least 'run', got a string");
        assertError("steps:\n  - run:\n      - a\n      - b\n", 3, 7, "steps[0].run", "expected a script (a string), got a list");
        assertError("runners: gpu\nsteps: [{run: a}]", 1, 10, "runners", "expected a list of strings, got a string");
        assertError("cache: [a, {b: c}]\nsteps: [{run: a}]", 1, 12, "cache[1]", "expected a cache entry (a string), got a map");
        assertError("variables: [A, B]\nsteps: [{run: a}]", 1, 12, "variables", "expected a map of NAME: value, got a list");
        assertError("variables:\n  A: [1]\nsteps: [{run: a}]", 2, 6, "variables.A", "expected a string, number or boolean, got a list");
        assertError("timeout: true\nsteps: [{run: a}]", 1, 10, "timeout", "expected a duration such as 90s, 10m or 1h30m, got a boolean");
        assertError("resources: 2\nsteps: [{run: a}]", 1, 12, "resources", "expected a map such as {cpu: 2, memory: 4Gi}, got a number");
        assertError("resources: {cpu: [1]}\nsteps: [{run: a}]", 1, 18, "resources.cpu", "expected a CPU quantity");
        assertError("on: 5\nsteps: [{run: a}]", 1, 5, "on", "unknown event '5'");
        assertError("on: {push: [main]}\nsteps: [{run: a}]", 1, 12, "on.push", "expected a map such as {branches: [main]} or nothing, got a list");
        assertError("steps:\n  - run: a\n    secrets: TOKEN\n", 3, 14, "steps[0].secrets", "expected a list of secret names, got a string");
        assertError("image: !!binary aGVsbG8=\nsteps: [{run: a}]", 1, 8, "image", "expected an image reference (a string), got a tagged value");
        assertError("- run: a\n", 1, 1, null, "expected a map of workflow fields (name, on, steps, ...), got a list");
        assertError("just text\n", 1, 1, null, "expected a map of workflow fields");
    }

    @Test
    void missingRequiredFieldsPointAtTheMapThatLacksThem() {
        assertError("""
                name: no steps
                image: alpine
                """, 1, 1, "steps", "required: a workflow needs at least one step");
        assertError("""
                steps:
                  - run: ok
                  - name: second
                    timeout: 5m
                """, 3, 5, "steps[1].run", "required: the script this step runs");
    }

    @Test
    void badValuesPointAtTheValue() {
        assertError("steps: []\n", 1, 8, "steps", "is empty; a workflow needs at least one step");
        assertError("steps:\n  - run: '   '\n", 2, 10, "steps[0].run", "is empty");
        assertError("name: ''\nsteps: [{run: a}]", 1, 7, "name", "is empty");
        assertError("name: \"two\\nlines\"\nsteps: [{run: a}]", 1, 7, "name", "must be one line");
        assertError("image: 'alpine latest'\nsteps: [{run: a}]", 1, 8, "image", "not an image reference: 'alpine latest'");
        assertError("timeout: 0\nsteps: [{run: a}]", 1, 10, "timeout", "a duration of zero");
        assertError("timeout: 1.5\nsteps: [{run: a}]", 1, 10, "timeout", "not a duration: '1.5'");
        assertError("resources:\n  memory: 12 bananas\nsteps: [{run: a}]", 2, 11, "resources.memory", "not a memory quantity: '12 bananas'");
        assertError("resources:\n  cpu: 0.0001\nsteps: [{run: a}]", 2, 8, "resources.cpu", "must be at least 1m");
        assertError("resources:\n  cpu: -1\nsteps: [{run: a}]", 2, 8, "resources.cpu", "not a CPU quantity: '-1'");
        assertError("resources:\n  cpu: 1e3\nsteps: [{run: a}]", 2, 8, "resources.cpu", "not a CPU quantity: '1e3'");
        assertError("resources:\n  memory: 0\nsteps: [{run: a}]", 2, 11, "resources.memory", "must be more than 0 bytes");
        assertError("on: [push, pull, push]\nsteps: [{run: a}]", 1, 18, "on[2]", "event 'push' is listed twice");
        assertError("on: []\nsteps: [{run: a}]", 1, 5, "on", "names no event");
        assertError("on: {}\nsteps: [{run: a}]", 1, 5, "on", "names no event");
        assertError("on:\nsteps: [{run: a}]", 1, 4, "on", "expected an event, a list of events or a map of events, got no value");
        assertError("on:\n  push:\n    branches: []\nsteps: [{run: a}]", 3, 15, "on.push.branches", "is empty; leave 'branches' out");
        assertError("on:\n  push:\n    branches: [main, '']\nsteps: [{run: a}]", 3, 22, "on.push.branches[1]", "is empty");
        assertError("on:\n  push:\n    branches: [main, main]\nsteps: [{run: a}]", 3, 22, "on.push.branches[1]",
                "branch pattern 'main' is listed twice");
        assertError("runners: [a, b, a]\nsteps: [{run: a}]", 1, 17, "runners[2]", "runner id 'a' is listed twice");
        assertError("runners: [a, 'did:web:example.com/x']\nsteps: [{run: a}]", 1, 14, "runners[1]",
                "not a runner id: 'did:web:example.com/x' (an id is " + dev.knotless.executor.RunnerId.GRAMMAR + ")");
    }

    @Test
    void anUnknownEventPointsAtItsKeyAndListsTheChoices() {
        WorkflowException e = error("""
                on:
                  push: {}
                  pull_request: {}
                steps: [{run: a}]
                """);
        assertThat(e.getMessage()).isEqualTo(FILE + ":3:3: field 'on.pull_request': "
                + "unknown event 'pull_request' (use push, pull, batch, manual or schedule)");
        assertError("on: [push, tag]\nsteps: [{run: a}]", 1, 12, "on[1]", "unknown event 'tag'");
    }

    @Test
    void variableAndSecretNamesMustBeShellIdentifiersAndNotReserved() {
        assertError("variables:\n  OK: 1\n  1BAD: x\nsteps: [{run: a}]", 3, 3, "variables.1BAD", "'1BAD' is not a valid variable name");
        assertError("variables:\n  A-B: x\nsteps: [{run: a}]", 2, 3, "variables.A-B", "'A-B' is not a valid variable name");
        assertError("variables:\n  KNOTLESS_SHA: x\nsteps: [{run: a}]", 2, 3, "variables.KNOTLESS_SHA", "'KNOTLESS_SHA' is reserved");
        assertError("variables:\n  CI: 'false'\nsteps: [{run: a}]", 2, 3, "variables.CI", "'CI' is reserved");
        assertError("variables:\n  EMPTY:\nsteps: [{run: a}]", 2, 9, "variables.EMPTY", "has no value (write '' for an empty string)");
        assertError("variables:\n  NUL: \"a\\0b\"\nsteps: [{run: a}]", 2, 8, "variables.NUL", "contains a NUL character");
        assertError("steps:\n  - run: a\n    secrets: [TOKEN, 'my token']\n", 3, 22, "steps[0].secrets[1]", "'my token' is not a valid secret name");
        assertError("steps:\n  - run: a\n    secrets: [KNOTLESS_TOKEN]\n", 3, 15, "steps[0].secrets[0]", "'KNOTLESS_TOKEN' is reserved");
        assertError("steps:\n  - run: a\n    secrets: [A, A]\n", 3, 18, "steps[0].secrets[1]", "secret 'A' is listed twice");
    }

    @Test
    void aDuplicateKeyPointsAtTheSecondAndNamesTheFirstLine() {
        WorkflowException e = error("""
                steps:
                  - name: one
                    run: a

                    run: b
                """);
        assertThat(e.getMessage()).isEqualTo(FILE + ":5:5: field 'steps[0].run': given twice (first at line 3)");
        assertError("image: a\nsteps: [{run: a}]\nimage: b\n", 3, 1, "image", "given twice (first at line 1)");
    }

    @Test
    void yamlSyntaxErrorsPointAtTheProblemNotTheLastGoodToken() {
        WorkflowException tab = error("steps:\n  - run: a\n\t  name: b\n");
        assertThat(tab.line()).isEqualTo(3);
        assertThat(tab.column()).isEqualTo(1);
        assertThat(tab.field()).isNull();
        assertThat(tab.problem()).startsWith("YAML syntax: found character '\\t(TAB)' that cannot start any token");

        WorkflowException unclosed = error("on: [push, pull\nsteps: [{run: a}]\n");
        assertThat(unclosed.getMessage()).isEqualTo(FILE + ":2:6: YAML syntax: expected ',' or ']', but got : "
                + "(while parsing a flow sequence started at line 1, column 5)");

        WorkflowException badIndent = error("steps:\n  - run: a\n name: x\n");
        assertThat(badIndent.line()).isEqualTo(3);
        assertThat(badIndent.problem()).startsWith("YAML syntax: ");
    }

    @Test
    void anEmptyFileIsAnError() {
        assertThat(error("").getMessage()).isEqualTo(FILE + ":1:1: the file is empty; a workflow needs at least 'steps'");
        assertThat(error("# only a comment\n\n").problem()).startsWith("the file is empty");
        assertThat(error("---\n").problem()).startsWith("the file is empty");
    }

    @Test
    void aSecondDocumentIsAnError() {
        assertError("steps: [{run: a}]\n---\nsteps: [{run: b}]\n", 3, 1, null, "a second YAML document");
    }

    @Test
    void anUnknownAliasIsAnError() {
        assertError("steps:\n  - run: *script\n", 2, 10, "steps[0].run", "alias '*script' names no anchor defined before it");
    }

    @Test
    void controlCharactersInKeysAreEscapedSoTheMessageStaysOneLine() {
        WorkflowException e = error("\"bad\\nkey\": 1\nsteps: [{run: a}]\n");
        assertThat(e.getMessage()).isEqualTo(FILE + ":1:1: field 'bad\\nkey': unknown field; "
                + "expected one of name, on, runners, image, timeout, resources, variables, cache, steps, reports, services, matrix, needs, artifacts");
    }

    @Test
    void errorsComeInFileOrderSoTheFirstMistakeIsReported() {
        assertError("""
                name: x
                timeout: never
                steps:
                  - run: a
                    timeout: also never
                """, 2, 10, "timeout", "not a duration: 'never'");
        assertError("""
                steps:
                  - timeout: first
                    run: a
                timeout: second
                """, 2, 14, "steps[0].timeout", "not a duration: 'first'");
        assertError("resources: {memory: lots, cpu: many}\nsteps: [{run: a}]", 1, 21, "resources.memory", "not a memory quantity");
    }

    @Test
    void aValueReachedThroughAnAliasIsReportedWhereTheAliasIsWritten() {
        assertError("""
                x-defaults: &five [5]
                steps:
                  - run: a
                    timeout: *five
                """, 1, 1, "x-defaults", "unknown field");
        assertError("""
                steps:
                  - &five [5]
                  - run: a
                    timeout: *five
                """, 2, 5, "steps[0]", "expected a step, a map with at least 'run', got a list");
        assertError("""
                steps:
                  - run: &five [5]
                  - run: a
                    timeout: *five
                """, 2, 10, "steps[0].run", "expected a script (a string), got a list");
        assertError("""
                variables: &list [1]
                steps:
                  - run: a
                    secrets: *list
                """, 1, 12, "variables", "expected a map");
    }

    @Test
    void aMergeKeyNeedsAMapOrAListOfMaps() {
        assertError("steps:\n  - <<: [a]\n    run: x\n", 2, 10, "steps[0].<<", "the merge key '<<' takes a map or a list of maps, not a string");
    }

    @Test
    void deepNestingIsRefusedBeforeItCanExhaustTheStack() {
        String deep = "steps: " + "[".repeat(200) + "]".repeat(200) + "\n";
        WorkflowException e = error(deep);
        assertThat(e.problem()).startsWith("nested deeper than 64 levels");
        assertThat(e.line()).isEqualTo(1);
    }

    @Test
    void aBranchPatternOfOursCannotExclude() {
        assertError("""
                on:
                  push:
                    branches: [main, '!wip']
                steps: [{run: make}]
                """, 3, 22, "on.push.branches[1]", "'!wip': a branch pattern cannot start with '!'");
    }

    @Test
    void pathsFilterOnlyAPushOrAPullAndSelectAtLeastOnePattern() {
        assertError("""
                on:
                  batch:
                    paths: ['src/**']
                steps: [{run: make}]
                """, 3, 5, "on.batch.paths", "unknown field");
        assertError("""
                on:
                  push: {paths: []}
                steps: [{run: make}]
                """, 2, 17, "on.push.paths", "is empty; leave 'paths' out to run on every change");
        assertError("""
                on:
                  pull: {paths: ['src/**', 'a!b']}
                steps: [{run: make}]
                """, 2, 28, "on.pull.paths[1]", "'a!b': '!' excludes only at the start of a pattern");
    }
}
