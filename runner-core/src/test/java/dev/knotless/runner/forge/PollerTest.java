package dev.knotless.runner.forge;

import dev.knotless.forge.Forge;
import dev.knotless.forge.ForgeEvent;
import dev.knotless.forge.ForgeException;
import dev.knotless.forge.Repository;
import dev.knotless.forge.CheckPublisher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.time.Ticker;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The poller over a forge whose polls take a while: several at once, results in the forge's order. */
class PollerTest {

    static final class SlowForge implements Forge {
        final List<Repository> repos;
        final AtomicInteger going = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();

        SlowForge(int count) {
            repos = IntStream.range(0, count)
                    .mapToObj(i -> new Repository("acme/r" + (char) ('a' + i), "/srv/r" + i, "main", List.of("r1"), List.of()))
                    .toList();
        }

        @Override
        public List<Repository> repositories() {
            return repos;
        }

        @Override
        public List<ForgeEvent> poll(Repository repo) throws IOException {
            most.accumulateAndGet(going.incrementAndGet(), Math::max);
            try {
                // later repositories answer sooner: the order of the round must not follow the clock
                Thread.sleep(20L * (repos.size() - repos.indexOf(repo)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                going.decrementAndGet();
            }
            if (repo.name().equals("acme/rc")) {
                throw new ForgeException("acme/rc: could not read refs");
            }
            if (repo.name().equals("acme/rd") && boom) {
                throw new IllegalStateException("a bug in the forge");
            }
            return List.of(new ForgeEvent.Push(repo.name(), "refs/heads/main", ForgeEvent.NO_COMMIT, "a".repeat(40)));
        }

        boolean boom;

        @Override
        public void acknowledge(Repository repo, ForgeEvent event) {}

        @Override
        public CheckPublisher publisher() {
            return null;
        }
    }

    @Test
    void dueRepositoriesArePolledFourAtATimeAndTheRoundKeepsTheForgesOrder() throws Exception {
        SlowForge forge = new SlowForge(12);
        Backoff backoff = new Backoff(Ticker.SYSTEM, Duration.ofMinutes(1), Duration.ofMinutes(5));
        Poller poller = new Poller(forge, backoff);
        Poller.Round round = poller.pollDue(r -> !r.name().equals("acme/rl"));

        assertThat(forge.most.get()).isEqualTo(Poller.PARALLELISM);
        assertThat(round.polled()).extracting(Repository::name)
                .containsExactly("acme/ra", "acme/rb", "acme/rd", "acme/re", "acme/rf", "acme/rg", "acme/rh", "acme/ri",
                        "acme/rj", "acme/rk");
        assertThat(round.events()).extracting(ForgeEvent::repo).containsExactlyElementsOf(
                round.polled().stream().map(Repository::name).toList());
        assertThat(round.errors()).containsExactly("acme/rc: could not read refs (next try in 120s)");

        assertThat(poller.pollDue(r -> true).polled()).as("polled ones wait for their interval; the unwatched one is due")
                .extracting(Repository::name).containsExactly("acme/rl");
    }

    @Test
    void aForgeBugIsThrownAsBefore() {
        SlowForge forge = new SlowForge(5);
        forge.boom = true;
        Poller poller = new Poller(forge, new Backoff(Ticker.SYSTEM, Duration.ofMinutes(1), Duration.ofMinutes(5)));
        assertThatThrownBy(() -> poller.pollDue(r -> true)).isInstanceOf(IllegalStateException.class).hasMessage("a bug in the forge");
    }
}
