package dev.knotless.runner.run.step;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.checks.StepResult;
import dev.knotless.checks.StepStatus;
import dev.knotless.executor.Environment;
import dev.knotless.executor.StepOutcome;
import dev.knotless.runner.run.RunFixture;
import dev.knotless.runner.run.StepProtocolPlans;
import dev.knotless.runner.run.recovery.RunProgress;
import dev.knotless.runner.run.request.RunRequest;
import dev.knotless.secrets.Grants;
import dev.knotless.secrets.Secret;
import dev.knotless.testkit.FakeSession;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every link of a step's chain calls the rest of the chain at most once, on every path through it:
 * a link that called it twice would send a step (its journal entry, its payload, its secrets) twice.
 * Each link is run on its own with a {@code next} that counts its calls and ends the step as each
 * path needs: passed, failed, failed in a way a retry covers, failed but allowed to, an error, a
 * cancel; for a first attempt and a later one, with and without secrets, an environment no process
 * could get, a step followed after a restart and one that never reached its environment, and
 * processes that could not be listed or stopped.
 */
class NextAtMostOnceTest {

    static final String WORKFLOW = """
            steps:
              - {name: plain, run: x}
              - {name: flaky, run: y, retry: {max: 2}}
              - {name: lint, run: z, continue-on-error: true}
            """;
    static final Grants.Granted TOKEN = new Grants.Granted(List.of(new Secret("TOKEN", "s3cret-token-value")), List.of());

    @TempDir Path dir;

    /** How the session answers the links that ask it something: following, listing and stopping processes. */
    final AtomicBoolean followFinds = new AtomicBoolean();
    final AtomicBoolean listingFails = new AtomicBoolean();
    final AtomicBoolean stoppingFails = new AtomicBoolean();

    /** One path: a call, and how the session answers along it. */
    record Route(String name, StepCall call, boolean followFinds, boolean listingFails, boolean stoppingFails) {}

    @Test
    void everyLinkCallsTheRestOfTheChainAtMostOnceOnEachOfItsPaths() throws Exception {
        FakeSession session = new FakeSession("fake-1")
                .onFollow("plain", (payload, out, err, output, signal) ->
                        followFinds.get() ? Optional.of(new StepOutcome.Exited(0)) : Optional.empty())
                .on("list processes", (payload, output, signal) -> new StepOutcome.Exited(listingFails.get() ? 2 : 0))
                .on("stop leftovers", (payload, output, signal) -> new StepOutcome.Exited(stoppingFails.get() ? 4 : 0));
        // a run whose steps hand values back, so that the links reading them take their own paths too
        RunRequest request = StepProtocolPlans.handingBack(new RunFixture(dir).request(WORKFLOW), StepProtocolPlans.GITHUB);
        try (ChainFixture chain = new ChainFixture(dir, request, session)) {
            Map<String, Integer> most = new LinkedHashMap<>();
            for (StepLink link : chain.resumedChain().links()) {
                String name = link.getClass().getSimpleName();
                for (Route path : paths(chain)) {
                    for (StepResult ending : endings(path.call())) {
                        followFinds.set(path.followFinds());
                        listingFails.set(path.listingFails());
                        stoppingFails.set(path.stoppingFails());
                        AtomicInteger calls = new AtomicInteger();
                        link.run(path.call(), next -> {
                            calls.incrementAndGet();
                            return ending;
                        });
                        assertThat(calls.get()).as("%s on the path '%s', the rest of the chain ending %s", name, path.name(),
                                ending).isLessThanOrEqualTo(1);
                        most.merge(name, calls.get(), Math::max);
                    }
                }
            }
            assertThat(most).as("every link went on down the chain on some path, so each was really tried")
                    .containsOnlyKeys("AnnounceStep", "GrantNotice", "RefuseUnfitEnvironment", "JournalStep", "PassedNotice",
                            "FollowResumed", "HandBack", "LeftoverCleanup", "MaskOutput", "ReadCommands")
                    .allSatisfy((link, calls) -> assertThat(calls).as(link).isEqualTo(1));
        }
    }

    /** The paths a step takes through the links. */
    private static List<Route> paths(ChainFixture chain) {
        Map<String, String> unfit = Map.of("BIG", "x".repeat(Environment.MAX_ENTRY + 1));
        RunProgress going = new RunProgress(1, 0, 0, 0, List.of());
        StepCall flaky = chain.call(2);
        return List.of(
                new Route("a first attempt", chain.call(1), false, false, false),
                new Route("a later attempt", flaky.after(List.of(new StepResult.Attempt(1, 5, "exited with 1"))), false, false, false),
                new Route("one that may fail", chain.call(3), false, false, false),
                new Route("an environment no process could get", chain.call(1, Grants.Granted.NONE, unfit, null), false, false, false),
                new Route("with secrets", chain.call(1, TOKEN, Map.of(), null), false, false, false),
                new Route("with secrets whose processes cannot be listed", chain.call(1, TOKEN, Map.of(), null), false, true, false),
                new Route("with secrets whose processes cannot be stopped", chain.call(1, TOKEN, Map.of(), null), false, false, true),
                new Route("followed after a restart", chain.call(1, Grants.Granted.NONE, Map.of(), going), true, false, false),
                new Route("never reached before a restart", chain.call(1, Grants.Granted.NONE, Map.of(), going), false, false, false));
    }

    /** How the rest of the chain may end {@code call}'s step. */
    private static List<StepResult> endings(StepCall call) {
        String name = call.step().name();
        StepResult failed = new StepResult(name, StepStatus.FAILURE, 1, 5, "exited with 1").afterAttempts(call.earlier());
        return List.of(
                new StepResult(name, StepStatus.SUCCESS, 0, 5, null).afterAttempts(call.earlier()),
                failed,
                failed.asContinued(),
                new StepResult(name, StepStatus.FAILURE, 3, 5, "exited with 3").afterAttempts(call.earlier()),
                new StepResult(name, StepStatus.ERROR, null, 5, "the executor lost it"),
                new StepResult(name, StepStatus.CANCELLED, null, 5, "cancelled"));
    }
}
