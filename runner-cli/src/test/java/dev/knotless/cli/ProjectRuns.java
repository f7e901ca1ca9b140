package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.TestRepo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Workflows of the shape real projects have, in {@code .github/workflows} as GitHub runs them,
 * with the local actions such a project writes and the images the test set-up builds. The plan is
 * the same for every executor; each executor's exec IT runs each of them.
 *
 * <p>A Node project: its {@code setup-node} is a local JavaScript action (GitHub's own {@code
 * @actions/core}) that puts the Node it runs on, the runner's, on the job's {@code PATH}, as
 * actions/setup-node puts the Node it installs; then the project's tests run with {@code node
 * --test} in an image with no Node of its own, in a matrix over two test groups.
 *
 * <p>A Python project: its {@code setup-python} is a local composite action that checks the
 * image's Python is the version the matrix asks for and exports where it is, as
 * actions/setup-python does; the package is byte-compiled (the lint step) and its tests run with
 * {@code unittest}, one of them failing in a job allowed to fail.
 *
 * <p>A Maven project ({@code examples/shop}): a JDK matrix of Debian's OpenJDK 17 and the Temurin
 * 25 this project builds with, both in one image as a runner's tool cache holds them; a local
 * {@code setup-java} composite action that picks the JDK by version and sets {@code JAVA_HOME} and
 * {@code PATH} as actions/setup-java does; a PostgreSQL service reached by its key as host name,
 * which the project's tests write to and read from over JDBC; {@code mvn -B -o test}.
 */
final class ProjectRuns {

    private ProjectRuns() {}

    /** What the exec of a project is given beside its executor's arguments: the runner's Node, as for {@link GithubWorkflowRun}. */
    static String[] args() {
        return GithubWorkflowRun.args();
    }

    static TestRepo nodeProject(Path dir, String image) throws Exception {
        TestRepo repo = new TestRepo(dir)
                .file("package.json", """
                        {"name": "greeter", "version": "1.0.0", "type": "module", "scripts": {"test": "node --test"}}
                        """)
                .file("src/greet.js", """
                        export function greet(name) {
                          return `hello ${name}`;
                        }
                        export function shout(name) {
                          return greet(name).toUpperCase() + '!';
                        }
                        """)
                .file("test/unit/greet.test.js", """
                        import test from 'node:test';
                        import assert from 'node:assert/strict';
                        import {greet} from '../../src/greet.js';
                        test('greets by name', () => assert.equal(greet('you'), 'hello you'));
                        """)
                .file("test/shout/shout.test.js", """
                        import test from 'node:test';
                        import assert from 'node:assert/strict';
                        import {shout} from '../../src/greet.js';
                        test('shouts', () => assert.equal(shout('you'), 'HELLO YOU!'));
                        test('shouts nothing', () => assert.equal(shout(''), 'HELLO !'));
                        """)
                .file(".github/actions/setup-node/action.yml", """
                        name: setup-node
                        description: Puts the Node this action runs on on the job's PATH
                        inputs:
                          node-version: {description: the major version the job wants, required: true}
                        outputs:
                          node-version: {description: the version put on PATH}
                        runs: {using: node24, main: index.mjs}
                        """)
                .file(".github/actions/setup-node/index.mjs", """
                        import * as core from '@actions/core';
                        import * as path from 'node:path';
                        const wanted = core.getInput('node-version', {required: true});
                        if (!process.version.startsWith(`v${wanted}.`)) {
                          core.setFailed(`Node ${wanted} was asked for; this runner has ${process.version}`);
                        } else {
                          core.addPath(path.dirname(process.execPath));
                          core.setOutput('node-version', process.version);
                          core.info(`Node ${process.version} on PATH from ${path.dirname(process.execPath)}`);
                        }
                        """)
                .file(".github/workflows/node.yml", """
                        name: Node CI
                        on:
                          push: {branches: [main]}
                          pull_request: {branches: [main]}
                        jobs:
                          test:
                            runs-on: ubuntu-latest
                            container: %s
                            strategy:
                              matrix:
                                node-version: [24]
                                suite: [unit, shout]
                            steps:
                              - uses: actions/checkout@v4
                              - id: setup
                                uses: ./.github/actions/setup-node
                                with:
                                  node-version: ${{ matrix.node-version }}
                              - run: echo "node=$(node --version) set up=${{ steps.setup.outputs.node-version }}"
                              - name: test ${{ matrix.suite }}
                                run: node --test --test-reporter=tap "test/${{ matrix.suite }}/**/*.test.js"
                        """.formatted(image));
        GithubWorkflowRun.toolkit.copyInto(repo, ".github/actions/setup-node");
        repo.commit();
        return repo;
    }

    static TestRepo pythonProject(Path dir, String image) throws Exception {
        TestRepo repo = new TestRepo(dir)
                .file("pyproject.toml", """
                        [project]
                        name = "tally"
                        version = "1.0"
                        requires-python = ">=3.11"
                        """)
                .file("src/tally/__init__.py", """
                        def tally(words):
                            counts = {}
                            for word in words:
                                counts[word.lower()] = counts.get(word.lower(), 0) + 1
                            return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
                        """)
                .file("tests/test_tally.py", """
                        import os
                        import unittest
                        from tally import tally

                        class TallyTest(unittest.TestCase):
                            def test_counts_words_ignoring_case(self):
                                self.assertEqual(tally(["a", "B", "b"]), {"b": 2, "a": 1})

                            def test_nothing(self):
                                self.assertEqual(tally([]), {})

                            @unittest.skipUnless(os.environ.get("STRICT") == "yes", "only in the strict job")
                            def test_strict(self):
                                self.assertEqual(tally(["x"]), {"x": 2})
                        """)
                .file(".github/actions/setup-python/action.yml", """
                        name: setup-python
                        description: Checks the image's Python and says where it is
                        inputs:
                          python-version: {description: major.minor, required: true}
                        outputs:
                          python-version:
                            description: the version found
                            value: ${{ steps.found.outputs.version }}
                        runs:
                          using: composite
                          steps:
                            - id: found
                              shell: sh
                              run: |
                                found=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
                                if [ "$found" != "${{ inputs.python-version }}" ]; then
                                  echo "::error::Python ${{ inputs.python-version }} was asked for; the image has $found"
                                  exit 1
                                fi
                                echo "version=$found" >> "$GITHUB_OUTPUT"
                                echo "pythonLocation=$(dirname "$(command -v python3)")" >> "$GITHUB_ENV"
                        """)
                .file(".github/workflows/python-package.yml", """
                        name: Python package
                        on:
                          push: {branches: [main]}
                          pull_request: {branches: [main]}
                        env:
                          PYTHONPATH: src
                        jobs:
                          build:
                            runs-on: ubuntu-latest
                            container: %1$s
                            continue-on-error: ${{ matrix.strict }}
                            strategy:
                              fail-fast: false
                              matrix:
                                python-version: ["3.11"]
                                strict: [false, true]
                            steps:
                              - uses: actions/checkout@v4
                              - name: Set up Python ${{ matrix.python-version }}
                                id: setup
                                uses: ./.github/actions/setup-python
                                with:
                                  python-version: ${{ matrix.python-version }}
                              - name: Lint
                                run: python3 -m compileall -q src tests && echo "compiled with ${{ steps.setup.outputs.python-version }} at $pythonLocation"
                              - name: Test
                                env:
                                  STRICT: ${{ matrix.strict && 'yes' || 'no' }}
                                run: python3 -m unittest discover -s tests -v
                        """.formatted(image));
        repo.commit();
        return repo;
    }

    /**
     * @param image the Maven image ({@code TestImages.MAVEN}), as the executor takes it
     * @param postgres the PostgreSQL image ({@code TestImages.POSTGRES}), likewise
     */
    static TestRepo mavenProject(Path dir, String image, String postgres) throws Exception {
        TestRepo repo = JUnitReportIT.copyOf(dev.knotless.testkit.TestImages.repositoryRoot().resolve("examples/shop"), dir)
                .file(".github/actions/setup-java/action.yml", """
                        name: setup-java
                        description: Puts the JDK of the version asked for on JAVA_HOME and PATH
                        inputs:
                          java-version: {description: "the feature version, such as 17", required: true}
                          distribution: {description: accepted as actions/setup-java takes it, default: temurin}
                        outputs:
                          version: {description: the JDK's full version, value: "${{ steps.find.outputs.version }}"}
                          path: {description: where it is, value: "${{ steps.find.outputs.path }}"}
                        runs:
                          using: composite
                          steps:
                            - id: find
                              shell: sh
                              run: |
                                for release in /usr/lib/jvm/*/release; do
                                  version=$(sed -n 's/^JAVA_VERSION="\\(.*\\)"/\\1/p' "$release")
                                  if [ "${version%%.*}" = "${{ inputs.java-version }}" ]; then
                                    home=$(dirname "$release")
                                    echo "JAVA_HOME=$home" >> "$GITHUB_ENV"
                                    echo "JAVA_HOME_${{ inputs.java-version }}_X64=$home" >> "$GITHUB_ENV"
                                    echo "$home/bin" >> "$GITHUB_PATH"
                                    echo "version=$version" >> "$GITHUB_OUTPUT"
                                    echo "path=$home" >> "$GITHUB_OUTPUT"
                                    exit 0
                                  fi
                                done
                                echo "::error::no JDK ${{ inputs.java-version }} under /usr/lib/jvm"
                                exit 1
                        """)
                .file(".github/workflows/maven.yml", """
                        name: Java CI with Maven
                        on:
                          push: {branches: [main]}
                          pull_request: {branches: [main]}
                        jobs:
                          build:
                            runs-on: ubuntu-latest
                            container: %1$s
                            strategy:
                              matrix:
                                java: [17, 25]
                            services:
                              postgres:
                                image: %2$s
                                env:
                                  POSTGRES_PASSWORD: postgres
                                ports: [5432]
                            env:
                              DATABASE_URL: jdbc:postgresql://postgres:5432/postgres
                            steps:
                              - uses: actions/checkout@v4
                              - name: Set up JDK ${{ matrix.java }}
                                id: java
                                uses: ./.github/actions/setup-java
                                with:
                                  java-version: ${{ matrix.java }}
                                  distribution: temurin
                              - name: Build with Maven
                                env:
                                  EXPECTED_JAVA: ${{ matrix.java }}
                                run: |
                                  echo "JDK ${{ steps.java.outputs.version }} at $JAVA_HOME, java on PATH: $(command -v java)"
                                  mvn -B -o test
                        """.formatted(image, postgres));
        repo.commit();
        return repo;
    }

    /** Asserts the checks and logs of {@code r}, the exec of {@link #mavenProject}. */
    static void ranLikeAMavenProject(CliRun r) throws Exception {
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        assertThat(statuses(r)).containsExactlyInAnyOrder("Java CI with Maven / build (17):success",
                "Java CI with Maven / build (25):success");
        String on17 = Files.readString(Path.of(check(r, "Java CI with Maven / build (17)").get("log").asText()));
        String on25 = Files.readString(Path.of(check(r, "Java CI with Maven / build (25)").get("log").asText()));
        assertThat(on17).containsPattern("JDK 17\\.[0-9.]+ at /usr/lib/jvm/java-17-openjdk-amd64, java on PATH:"
                + " /usr/lib/jvm/java-17-openjdk-amd64/bin/java");
        assertThat(on25).containsPattern("JDK 25(\\.[0-9.]+)? at /usr/lib/jvm/temurin-25-jdk-amd64, java on PATH:"
                + " /usr/lib/jvm/temurin-25-jdk-amd64/bin/java");
        for (String log : List.of(on17, on25)) {
            assertThat(log).contains("Running example.shop.OrdersTest", "Tests run: 3, Failures: 0, Errors: 0, Skipped: 0",
                    "BUILD SUCCESS");
        }
    }

    /** Asserts the checks and logs of {@code r}, the exec of {@link #pythonProject}. */
    static void ranLikeAPythonProject(CliRun r) throws Exception {
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        assertThat(statuses(r)).containsExactlyInAnyOrder("Python package / build (3.11, false):success",
                "Python package / build (3.11, true):failure");
        JsonNode strict = check(r, "Python package / build (3.11, true)");
        assertThat(strict.get("continuedOnError").asBoolean()).isTrue();
        String passing = Files.readString(Path.of(check(r, "Python package / build (3.11, false)").get("log").asText()));
        String failing = Files.readString(Path.of(strict.get("log").asText()));
        for (String log : List.of(passing, failing)) {
            assertThat(log).contains("compiled with 3.11 at /usr/bin", "test_counts_words_ignoring_case (test_tally.TallyTest"
                    + ".test_counts_words_ignoring_case) ... ok");
        }
        assertThat(passing).contains("test_strict (test_tally.TallyTest.test_strict) ... skipped 'only in the strict job'",
                "Ran 3 tests", "OK (skipped=1)");
        assertThat(failing).contains("test_strict (test_tally.TallyTest.test_strict) ... FAIL", "FAILED (failures=1)");
        assertThat(strict.get("reason").asText()).contains("'Test' exited with 1");
    }

    /** Asserts the checks and logs of {@code r}, the exec of {@link #nodeProject}. */
    static void ranLikeANodeProject(CliRun r) throws Exception {
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        assertThat(statuses(r)).containsExactlyInAnyOrder("Node CI / test (24, unit):success", "Node CI / test (24, shout):success");
        String unit = Files.readString(Path.of(check(r, "Node CI / test (24, unit)").get("log").asText()));
        String shout = Files.readString(Path.of(check(r, "Node CI / test (24, shout)").get("log").asText()));
        for (String log : List.of(unit, shout)) {
            assertThat(log).containsPattern("Node v24\\.\\d+\\.\\d+ on PATH from /steps/\\.runtimes/node/bin")
                    .containsPattern("node=v24\\.\\d+\\.\\d+ set up=v24\\.\\d+\\.\\d+");
        }
        assertThat(unit).contains("ok 1 - greets by name", "# pass 1", "# fail 0").doesNotContain("shouts");
        assertThat(shout).contains("ok 1 - shouts", "ok 2 - shouts nothing", "# pass 2", "# fail 0");
        JsonNode steps = check(r, "Node CI / test (24, shout)").get("steps");
        assertThat(steps.get(1).get("outputs").get("node-version").asText()).startsWith("v24.");
        assertThat(steps.get(3).get("name").asText()).isEqualTo("test shout");
    }

    /** Each check of {@code r} as {@code WORKFLOW:STATUS}. */
    private static List<String> statuses(CliRun r) {
        List<String> statuses = new ArrayList<>();
        for (JsonNode check : r.checks()) {
            statuses.add(check.get("workflow").asText() + ":" + check.get("status").asText());
        }
        return statuses;
    }

    private static JsonNode check(CliRun r, String workflow) {
        return r.checks().stream().filter(c -> c.get("workflow").asText().equals(workflow)).findFirst().orElseThrow();
    }
}
