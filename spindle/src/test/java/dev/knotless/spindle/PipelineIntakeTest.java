package dev.knotless.spindle;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.knotless.checkout.Mirrors;
import dev.knotless.checks.Event;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.PipelineRunNames;
import dev.knotless.forge.Repository;
import dev.knotless.spindle.knot.KnotEvent;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A knot's pipeline, from its frame to the daemon's forge event: kept once however often the knot
 * sends it, pending told per run before the daemon can take it, another engine failed at once,
 * and only the repositories served, from their own knot.
 */
class PipelineIntakeTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String DID = "did:plc:owner";
    static final String SHA = "a".repeat(40);
    static final String RUNNER = "did:web:spindle.test";
    /**
     * The daemon's names, stood in for: one run per workflow, an id that says which pipeline and
     * workflow it is for. That the planner's names are the ids of the runs it plans is its own test's.
     */
    static final PipelineRunNames NAMES = p -> p.workflows().keySet().stream()
            .map(w -> new PipelineRunNames.RunName(w, runId(p.repo(), w, p.event(), p.commit(), p.id()))).toList();

    @TempDir Path dir;
    SpindleStore store;
    PipelineStatuses statuses;
    SpindleForge forge;
    PipelineIntake intake;
    final List<String> woken = new CopyOnWriteArrayList<>();
    final List<String> log = new CopyOnWriteArrayList<>();
    final WatchedRepos repos = () -> List.of(new WatchedRepos.Watched("at://" + DID + "/sh.tangled.repo/3lweb", DID, "web", "knot.test"));

    @BeforeEach
    void open() throws Exception {
        store = SpindleStore.open(dir.resolve("spindle"), Clock.systemUTC());
        statuses = new PipelineStatuses(store, JSON, Clock.systemUTC(), new StatusSignal());
        KnotUrls urls = new KnotUrls(false);
        forge = new SpindleForge(RUNNER, repos, urls, store, statuses, JSON, log::add, () -> {});
        intake = new PipelineIntake(NAMES, repos, urls, store, statuses, forge, new Mirrors(dir.resolve("state")), JSON,
                woken::add, log::add);
    }

    @AfterEach
    void close() throws Exception {
        store.close();
    }

    static KnotEvent frame(String knot, String rkey, String repoKnot, String repoName) {
        ObjectNode event = JSON.createObjectNode();
        ObjectNode trigger = event.putObject("triggerMetadata").put("kind", "push");
        trigger.putObject("repo").put("knot", repoKnot).put("did", DID).put("repo", repoName).put("defaultBranch", "trunk");
        trigger.putObject("push").put("ref", "refs/heads/trunk").put("newSha", SHA).put("oldSha", "0".repeat(40));
        var workflows = event.putArray("workflows");
        workflows.addObject().put("name", "build.yml").put("engine", "knotless").put("raw", "engine: knotless\nsteps: [{run: make}]\n");
        workflows.addObject().put("name", "nix.yml").put("engine", "nixery").put("raw", "steps: []\n");
        return new KnotEvent(knot, rkey, "sh.tangled.pipeline", event);
    }

    List<String> statuses() throws Exception {
        List<String> out = new ArrayList<>();
        for (SpindleStore.Event e : store.eventsAfter(0)) {
            JsonNode j = JSON.readTree(e.json());
            out.add(j.path("workflow").asText() + " " + j.path("status").asText());
        }
        return out;
    }

    @Test
    void aPipelineIsToldPendingKeptAndBecomesTheDaemonsEventOnce() throws Exception {
        intake.event(frame("knot.test", "3lpipe", "knot.test", "web"));
        assertThat(statuses()).containsExactly("nix.yml failed", "build.yml pending");
        assertThat(woken).containsExactly("did-plc-owner/web");

        Repository repo = forge.repositories().getFirst();
        assertThat(repo.cloneUrl()).isEqualTo("https://knot.test/did:plc:owner/web");
        assertThat(repo.defaultBranch()).isEqualTo("trunk");
        assertThat(repo.runners()).containsExactly(RUNNER);
        List<ForgeEvent> events = forge.poll(repo);
        assertThat(events).singleElement().isInstanceOfSatisfying(ForgeEvent.Pipeline.class, p -> {
            assertThat(p.id()).isEqualTo("knot.test/3lpipe");
            assertThat(p.event()).isEqualTo(Event.PUSH);
            assertThat(p.commit()).isEqualTo(SHA);
            assertThat(p.ref()).isEqualTo("refs/heads/trunk");
            assertThat(p.branch()).isEqualTo("trunk");
            assertThat(p.trusted()).isTrue();
            assertThat(p.dialect()).isEqualTo("tangled");
            assertThat(p.workflows()).containsOnlyKeys("build.yml");
        });
        // the run the planner will make is the one its statuses are told for
        String runId = runId("did-plc-owner/web", "build.yml", Event.PUSH, SHA, "knot.test/3lpipe");
        assertThat(store.workflowOf(runId)).get().extracting(SpindleStore.WorkflowRun::workflow).isEqualTo("build.yml");

        // sent again before and after it was queued: nothing new
        intake.event(frame("knot.test", "3lpipe", "knot.test", "web"));
        forge.acknowledge(repo, events.getFirst());
        assertThat(forge.poll(repo)).isEmpty();
        intake.event(frame("knot.test", "3lpipe", "knot.test", "web"));
        assertThat(forge.poll(repo)).isEmpty();
        assertThat(statuses()).hasSize(2);
        assertThat(woken).hasSize(1);
    }

    @Test
    void aPipelineOfAnotherKnotsOrAnUnservedRepositoryIsLeftOut() throws Exception {
        intake.event(frame("evil.test", "3lpipe", "knot.test", "web")); // a knot speaking for another's repository
        intake.event(frame("knot.test", "3lother", "knot.test", "other")); // not served here
        intake.event(new KnotEvent("knot.test", "3lbad", "sh.tangled.pipeline", JSON.createObjectNode().put("workflows", 3)));
        intake.event(new KnotEvent("knot.test", "3lref", "sh.tangled.git.refUpdate", JSON.createObjectNode()));
        assertThat(statuses()).isEmpty();
        assertThat(woken).isEmpty();
        assertThat(log).anySatisfy(l -> assertThat(l).contains("knot evil.test sent a pipeline that is left out")
                        .contains("not the knot it came from"))
                .anySatisfy(l -> assertThat(l).contains("knot knot.test sent a pipeline that is left out"));
        assertThat(forge.poll(forge.repositories().getFirst())).isEmpty();
    }

    static String runId(String repo, String workflow, Event event, String commit, String pipeline) {
        return String.join(" ", repo, workflow, event.wireName(), commit, pipeline);
    }
}
