package dev.knotless.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.knotless.testkit.ActionsToolkit;
import dev.knotless.testkit.TestRepo;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A GitHub Actions workflow as a repository has it in {@code .github/workflows}, run by {@code
 * exec} as it is (docs/reference/github-actions.md): a job in a container, its checkout served by
 * the runner's own (with the whole history and its tags: {@code fetch-depth: 0}), the workspace
 * and {@code HOME} where GitHub's container jobs have them, the
 * environment of workflow, job and step over one another, {@code defaults.run}, GitHub's default
 * shell falling back to {@code sh} in an image without bash, a step's working directory, a
 * {@code failure()} step skipped, values handed back through GitHub's step files and workflow
 * commands (an added mask among them), expressions over what only the run knows (a step's outputs
 * and outcome by its id, in a name, a condition, a variable and a script; the run's facts; a secret
 * not set; {@code hashFiles} over the workspace), a local composite action given an input from a
 * step before and read back by its caller's id, and a matrix job of two combinations that needs the
 * first job and reads what it handed on (its {@code outputs}) and how it ended; a local
 * JavaScript action on the runner's Node, through GitHub's own {@code @actions/core}, {@code exec}
 * and {@code io}; a job whose {@code if}
 * is false skipped before anything of it starts, the job that needs it skipped too, a job that
 * may fail ({@code continue-on-error}) failing, an {@code always()} job run after them, and a job
 * in a deployment environment the operator declared, reading its variables.
 * The plan is the same for every executor; each executor's exec IT runs it.
 */
final class GithubWorkflowRun {

    private GithubWorkflowRun() {}

    /** What the JavaScript action imports, and the Node the runner brings in for it. */
    static final ActionsToolkit toolkit = ActionsToolkit.installed();

    /** What the exec of {@link #repo} is given beside its executor's arguments. */
    static String[] args() {
        return toolkit.args().toArray(String[]::new);
    }

    /**
     * The repository in {@code dir}, its jobs in {@code image} (named by tag in a registry, which
     * the runner pins by digest), with its configuration variables set
     * in the runner's {@code state} as an operator sets them.
     */
    static TestRepo repo(Path dir, String image, Path state) throws Exception {
        TestRepo repo = new TestRepo(dir)
                .file("hello.txt", "hello from the commit\n")
                .file("sub/marker", "in sub\n")
                .file(".github/actions/greet/action.yml", """
                        name: Greet
                        inputs:
                          who: {description: whom, required: true}
                          punctuation: {default: "!"}
                        outputs:
                          greeting: {value: "${{ steps.say.outputs.text }}"}
                        runs:
                          using: composite
                          steps:
                            - id: say
                              name: say
                              shell: sh
                              run: |
                                echo "text=hello ${{ inputs.who }}${{ inputs.punctuation }}" >> "$GITHUB_OUTPUT"
                                echo "action at $GITHUB_ACTION_PATH var=${{ vars.greeting }}"
                        """)
                .file(".github/actions/js/action.yml", """
                        name: JS
                        inputs:
                          who: {required: true}
                          greeting words: {default: hello}
                        outputs:
                          said: {description: what it said}
                        runs: {using: node24, main: index.mjs, pre: pre.mjs, post: post.mjs}
                        """)
                .file(".github/actions/js/post.mjs", """
                        import * as core from '@actions/core';
                        core.info(`js post state=${core.getState('started')} pre=${core.getState('pre')}`);
                        """)
                .file(".github/actions/js/pre.mjs", """
                        import * as core from '@actions/core';
                        core.saveState('pre', `from-pre-[${core.getInput('who')}]`);
                        """)
                .file(".github/actions/js/index.mjs", """
                        import * as core from '@actions/core';
                        import * as exec from '@actions/exec';
                        import * as io from '@actions/io';
                        // @actions/github's own Context, by its file: its package exports only what needs its REST client
                        import {Context} from './node_modules/@actions/github/lib/context.js';
                        const who = core.getInput('who', {required: true});
                        const context = new Context();
                        core.info(`js event=${context.eventName} repo=${context.repo.owner}/${context.repo.repo}`
                            + ` payload=${context.payload.repository.full_name} default=${context.payload.repository.default_branch}`
                            + ` server=${context.serverUrl}`);
                        core.setSecret('js-secret-value');
                        core.info(`js says ${core.getInput('greeting words')} ${who} from ${process.env.GITHUB_ACTION_PATH}`);
                        core.info(`js main state pre=${core.getState('pre')}`);
                        core.info('js secret=js-secret-value');
                        await io.mkdirP('made/by/js');
                        let out = '';
                        await exec.exec('sh', ['-c', 'echo exec-ran-in-$(pwd)'], {listeners: {stdout: d => { out += d; }}});
                        core.setOutput('said', `${core.getInput('greeting words')} ${who}`);
                        core.saveState('started', `yes-${who}`);
                        core.exportVariable('FROM_JS', 'exported');
                        core.warning('js warns', {file: 'hello.txt', startLine: 1});
                        await core.summary.addRaw('js summary').write();
                        core.info(`js exec=${out.trim()} which=${await io.which('sh', true)}`);
                        """)
                .file(".github/workflows/ci.yml", """
                        name: GH
                        run-name: GH on ${{ github.ref_name }} (${{ github.event_name }})
                        on: [push]
                        env: {LEVEL: workflow, KEEP: workflow}
                        jobs:
                          build:
                            runs-on: ubuntu-latest
                            container: %1$s
                            env: {LEVEL: job}
                            outputs:
                              version: ${{ steps.made.outputs.version }}
                              where: ${{ github.ref_name }}
                            steps:
                              - uses: actions/checkout@v4
                                with: {fetch-depth: 0}
                              - name: where
                                run: |
                                  echo "workspace=$(pwd) home=$HOME"
                                  echo "described=$(git describe --tags) commits=$(git rev-list --count HEAD)"
                                  echo "file=$(cat hello.txt)"
                                  echo "level=$LEVEL keep=$KEEP step=$STEP"
                                env: {STEP: step}
                              - name: shell
                                run: echo "shell=$0 flags=$-"
                              - name: sub
                                working-directory: sub
                                run: echo "sub=$(cat marker)"
                              - name: hand back
                                run: |
                                  echo "FROM_STEP=handed" >> "$GITHUB_ENV"
                                  echo "/opt/extra" >> "$GITHUB_PATH"
                                  echo "result=42" >> "$GITHUB_OUTPUT"
                                  echo "## all good" >> "$GITHUB_STEP_SUMMARY"
                                  echo "::add-mask::hidden-token-value"
                                  echo "::warning file=hello.txt,line=1::look here"
                              - name: handed
                                run: |
                                  echo "from=$FROM_STEP path=$PATH"
                                  echo "token=hidden-token-value"
                              - id: made
                                name: made on ${{ github.ref_name }}
                                run: echo "version=7" >> "$GITHUB_OUTPUT"
                              - id: greet
                                if: github.ref == 'refs/heads/main'
                                uses: ./.github/actions/greet
                                with:
                                  who: v${{ steps.made.outputs.version }}
                              - name: greeted
                                run: echo "greeting=${{ steps.greet.outputs.greeting }} outcome=${{ steps.greet.outcome }}"
                              - id: ungreeted
                                if: github.event_name == 'pull_request'
                                uses: ./.github/actions/greet
                                with:
                                  who: nobody
                              - name: not greeted
                                run: echo "ungreeted outcome=${{ steps.ungreeted.outcome }} text=[${{ steps.ungreeted.outputs.greeting }}]"
                              - id: js
                                uses: ./.github/actions/js
                                with: {who: "v${{ steps.made.outputs.version }}"}
                              - name: after js
                                run: echo "js said=${{ steps.js.outputs.said }} env=$FROM_JS dir=$(ls -d made/by/js)"
                              - name: read
                                if: steps.made.outputs.version == '7' && github.event_name == 'push'
                                env:
                                  V: ${{ steps.made.outputs.version }}
                                  GONE: ${{ secrets.NOT_SET }}
                                  GREETING: ${{ vars.GREETING }}
                                run: >-
                                  echo "v=$V pasted=${{ steps.made.outputs.version }} outcome=${{ steps.made.outcome }}
                                  sha=$GITHUB_SHA ref=${{ github.ref }} job=$GITHUB_JOB os=$RUNNER_OS gone=[$GONE]
                                  var=$GREETING pasted var=${{ vars.Greeting }} unset var=[${{ vars.NOT_SET }}]"
                              - name: not read
                                if: steps.made.outputs.version == '8'
                                run: echo never printed either
                              - name: hashed
                                if: hashFiles('**/nothing-here') == ''
                                env:
                                  KEY: deps-${{ hashFiles('**/marker', 'hello.txt') }}
                                run: echo "key=$KEY"
                              - name: on failure
                                if: failure()
                                run: echo never printed
                          test:
                            needs: build
                            runs-on: ubuntu-latest
                            container: %1$s
                            strategy:
                              matrix:
                                part: [1, 2]
                            defaults: {run: {shell: sh}}
                            steps:
                              - run: echo "part=${{ matrix.part }} of ${{ strategy.job-total }}"
                              - run: echo "needed=${{ needs.build.result }} version=${{ needs.build.outputs.version }} where=$W"
                                env: {W: "${{ needs.build.outputs.where }}"}
                          deploy:
                            needs: build
                            if: github.ref == 'refs/heads/release' && needs.build.outputs.version == '7'
                            runs-on: ubuntu-latest
                            container: %1$s
                            steps:
                              - run: echo never deployed
                          verify:
                            needs: deploy
                            runs-on: ubuntu-latest
                            container: %1$s
                            steps:
                              - run: echo never verified
                          experimental:
                            runs-on: ubuntu-latest
                            container: %1$s
                            continue-on-error: true
                            steps:
                              - run: exit 3
                          report:
                            needs: [build, deploy, experimental]
                            if: always() && needs.build.outputs.version == '7' && vars.GREETING == 'hello there'
                            runs-on: ubuntu-latest
                            container: %1$s
                            steps:
                              - run: >-
                                  echo "report build=${{ needs.build.result }} deploy=${{ needs.deploy.result }}
                                  experimental=${{ needs.experimental.result }}"
                          stage:
                            needs: report
                            environment: {name: staging, url: "https://staging.example"}
                            runs-on: ubuntu-latest
                            container: %1$s
                            steps:
                              - run: echo "stage greeting=${{ vars.GREETING }} region=${{ vars.REGION }}"
                        """.formatted(image));
        toolkit.copyInto(repo, ".github/actions/js");
        repo.commit();
        repo.git("tag", "-a", "v0.9", "-m", "the last release");
        repo.file("later.txt", "after the release\n");
        repo.commit("after the release");
        assertThat(Main.commandLine().execute("vars", "set", "--repo", dir.toString(), "--state-dir", state.toString(),
                "greeting", "hello there")).isZero();
        assertThat(Main.commandLine().execute("environments", "add", "--repo", dir.toString(), "--state-dir",
                state.toString(), "staging", "--branch", "main")).isZero();
        for (String[] variable : new String[][] {{"GREETING", "hello staging"}, {"REGION", "eu"}}) {
            assertThat(Main.commandLine().execute("vars", "set", "--repo", dir.toString(), "--state-dir", state.toString(),
                    "--environment", "staging", variable[0], variable[1])).isZero();
        }
        return repo;
    }

    /** Asserts the checks and logs of {@code r}, the exec of {@link #repo}. */
    static void ranAsGithubWould(CliRun r) throws Exception {
        assertThat(r.exit()).as(r.err()).isEqualTo(0);
        List<String> names = new ArrayList<>();
        for (JsonNode check : r.checks()) {
            names.add(check.get("workflow").asText() + ":" + check.get("status").asText());
        }
        assertThat(names).as(r.err()).containsExactly("GH / build:success", "GH / experimental:failure", "GH / test (1):success",
                "GH / test (2):success", "GH / deploy:skipped", "GH / verify:skipped", "GH / report:success",
                "GH / stage:success");
        // a deployment environment the operator declared: its variables over the repository's
        assertThat(Files.readString(Path.of(check(r, "GH / stage").get("log").asText())))
                .contains("deploying to environment staging (https://staging.example)", "stage greeting=hello staging region=eu");
        // a job's if: decided before anything of the run is made; what needs a skipped job is skipped too
        assertThat(check(r, "GH / deploy").get("reason").asText()).isEqualTo("its condition 'github.ref == 'refs/heads/release'"
                + " && needs.build.outputs.version == '7'' is false");
        assertThat(check(r, "GH / deploy").get("steps")).isEmpty();
        assertThat(check(r, "GH / verify").get("reason").asText()).isEqualTo("needs GH / deploy, which was skipped");
        // a job that may fail: shown failed, passed for exec's exit code and for the job that needs it
        assertThat(check(r, "GH / experimental").get("continuedOnError").asBoolean()).isTrue();
        assertThat(check(r, "GH / experimental").get("reason").asText()).contains("exited with 3");
        assertThat(Files.readString(Path.of(check(r, "GH / report").get("log").asText())))
                .contains("report build=success deploy=skipped experimental=success");
        JsonNode build = check(r, "GH / build");
        // the workflow's run-name, worked out as each run started, on every job's check
        for (JsonNode check : r.checks()) {
            assertThat(check.get("runName").asText()).as(check.get("workflow").asText()).isEqualTo("GH on main (push)");
        }
        // the job's image, named by tag in a registry, pinned by digest as the run started
        assertThat(build.get("images").size()).as(build.toString()).isEqualTo(1);
        String asked = build.get("images").fieldNames().next();
        String pinned = build.get("images").get(asked).asText();
        assertThat(pinned).matches(java.util.regex.Pattern.quote(asked.substring(0, asked.lastIndexOf(':')))
                + "@sha256:[0-9a-f]{64}");
        assertThat(Files.readString(Path.of(build.get("log").asText()))).contains("image " + asked + " is " + pinned);
        List<String> steps = new ArrayList<>();
        for (JsonNode step : build.get("steps")) {
            steps.add(step.get("name").asText() + ":" + step.get("status").asText());
        }
        // a JavaScript action's pre step first, whatever the step that uses it reads (here nothing ran yet)
        assertThat(steps).containsExactly("Pre Run ./.github/actions/js:success", "Run actions/checkout@v4:success", "where:success", "shell:success",
                "sub:success", "hand back:success", "handed:success", "made on main:success",
                "Run ./.github/actions/greet / say:success", "Run ./.github/actions/greet:success", "greeted:success",
                // a composite action whose caller's condition is false: its steps and its end skipped
                "Run ./.github/actions/greet / say:skipped", "Run ./.github/actions/greet:skipped", "not greeted:success",
                "Run ./.github/actions/js:success", "after js:success", "read:success",
                "not read:skipped", "hashed:success", "on failure:skipped", "Post Run ./.github/actions/js:success");
        JsonNode handBack = build.get("steps").get(5);
        assertThat(handBack.get("outputs").get("result").asText()).isEqualTo("42");
        assertThat(handBack.get("annotations").get(0).get("message").asText()).isEqualTo("look here");
        String log = Files.readString(Path.of(build.get("log").asText()));
        // actions/checkout with fetch-depth: 0: the whole history and its tags
        assertThat(log).contains("described=v0.9-1-g" + build.get("commit").asText().substring(0, 7), "commits=2");
        assertThat(log).contains("workspace=/github/workspace home=/github/home", "file=hello from the commit",
                "level=job keep=workflow step=step", "shell=", "sub=in sub", "from=handed path=/opt/extra:", "token=***")
                .doesNotContain("never printed").doesNotContain("hidden-token-value");
        // what only the run knows: the steps before by id, the run's facts, a secret not set reading as empty
        assertThat(log).contains("v=7 pasted=7 outcome=success sha=" + build.get("commit").asText()
                + " ref=refs/heads/main job=build os=Linux gone=[]", "withheld NOT_SET (not set for this repository)");
        // the repository's configuration variables, by any case, in a variable, a script, an action and a job's if
        assertThat(log).contains("var=hello there pasted var=hello there unset var=[]");
        // a local composite action: its input from a step before, its output read by its caller's id
        assertThat(log).contains("action at /github/workspace/.github/actions/greet var=hello there",
                "greeting=hello v7! outcome=success",
                "ungreeted outcome=skipped text=[]");
        assertThat(log.split("action at /github/workspace/.github/actions/greet", -1)).as("the greet action ran once").hasSize(2);
        // a JavaScript action on the runner's Node, through GitHub's own @actions/core, exec and io
        assertThat(log).contains("brought Node v24", "js says hello v7 from /github/workspace/.github/actions/js",
                "js secret=***", "exec-ran-in-/github/workspace", "js exec=exec-ran-in-/github/workspace which=",
                "js said=hello v7 env=exported dir=made/by/js", // pre's inputs are worked out as it starts, before the step they read ran
                "js main state pre=from-pre-[v]", "js post state=yes-v7 pre=from-pre-[v]").doesNotContain("js-secret-value");
        // the event's file, read by @actions/github's Context as GitHub's actions read it
        // the repository as GitHub names one, OWNER/NAME: the last two parts of where it is cloned from
        Path cloned = Path.of(build.get("repo").asText());
        String ownerAndName = cloned.getParent().getFileName() + "/" + cloned.getFileName();
        assertThat(log).contains("js event=push repo=" + ownerAndName + " payload=" + ownerAndName
                        + " default=main server=https://github.com")
                .doesNotContain("GITHUB_EVENT_PATH");
        JsonNode js = build.get("steps").get(14);
        assertThat(js.get("outputs").get("said").asText()).isEqualTo("hello v7");
        assertThat(js.get("annotations").get(0).get("message").asText()).isEqualTo("js warns");
        // GitHub's hashFiles: the SHA-256 of each matching file's SHA-256, in path order
        MessageDigest all = MessageDigest.getInstance("SHA-256");
        all.update(MessageDigest.getInstance("SHA-256").digest("hello from the commit\n".getBytes(StandardCharsets.UTF_8)));
        all.update(MessageDigest.getInstance("SHA-256").digest("in sub\n".getBytes(StandardCharsets.UTF_8)));
        assertThat(log).contains("key=deps-" + HexFormat.of().formatHex(all.digest()));
        // GitHub's default shell is bash -e where there is bash, else sh -e: either way -e is set
        assertThat(log.lines().filter(l -> l.contains("shell=")).findFirst().orElseThrow()).containsPattern("flags=[a-z]*e");
        assertThat(build.get("jobOutputs").get("version").asText()).isEqualTo("7");
        assertThat(Files.readString(Path.of(check(r, "GH / test (1)").get("log").asText())))
                .contains("part=1 of 2", "needed=success version=7 where=main");
        assertThat(Files.readString(Path.of(check(r, "GH / test (2)").get("log").asText())))
                .contains("part=2 of 2", "needed=success version=7 where=main");
    }

    private static JsonNode check(CliRun r, String workflow) {
        return r.checks().stream().filter(c -> c.get("workflow").asText().equals(workflow)).findFirst().orElseThrow();
    }
}
