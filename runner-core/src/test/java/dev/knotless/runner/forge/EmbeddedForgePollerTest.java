package dev.knotless.runner.forge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.knotless.forge.Cursors;
import dev.knotless.forge.Repository;
import dev.knotless.forge.RunnerSelection;
import dev.knotless.forge.embedded.EmbeddedForge;
import dev.knotless.testkit.FakeClock;
import dev.knotless.testkit.FakeTicker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The poller over a real embedded forge: its errors and backoff as the daemon logs them. */
class EmbeddedForgePollerTest {

    @TempDir
    Path temp;

    private Path source;
    private EmbeddedForge forge;

    @BeforeEach
    void setUp() throws Exception {
        source = temp.resolve("source");
        Files.createDirectories(source);
        git(source, "init", "-q", "-b", "main");
        commit("first");
        forge = new EmbeddedForge(temp.resolve("forge"), Cursors.inMemory(), new FakeClock(), Duration.ofSeconds(30));
        forge.add(new Repository("acme/app", source.toString(), "main", List.of("a", "b"), List.of("b")));
    }

    @Test
    void thePollerReportsErrorsAsOneLineAndBacksOff() throws Exception {
        forge.add(new Repository("acme/gone", temp.resolve("nowhere").toString(), "main", List.of("a"), List.of()));
        forge.add(new Repository("acme/other", source.toString(), "main", List.of("z"), List.of()));
        FakeTicker ticker = new FakeTicker();
        Poller poller = new Poller(forge, new Backoff(ticker, Duration.ofSeconds(10), Duration.ofMinutes(5)));

        Poller.Round round = poller.pollDue(r -> RunnerSelection.watches(r, "a"));
        assertThat(round.polled()).extracting(Repository::name).containsExactly("acme/app");
        assertThat(round.errors()).singleElement().asString()
                .startsWith("could not list the refs of acme/gone: ").endsWith("(next try in 20s)");

        ticker.advance(Duration.ofSeconds(10));
        commit("second");
        round = poller.pollDue(r -> RunnerSelection.watches(r, "a"));
        assertThat(round.polled()).extracting(Repository::name).containsExactly("acme/app");
        assertThat(round.errors()).isEmpty(); // acme/gone is backing off
        assertThat(round.events()).hasSize(1);

        ticker.advance(Duration.ofSeconds(10));
        round = poller.pollDue(r -> RunnerSelection.watches(r, "a"));
        assertThat(round.errors()).singleElement().asString().endsWith("(next try in 40s)");
    }

    private void commit(String message) throws Exception {
        Files.writeString(source.resolve("file.txt"), message + "\n", StandardCharsets.UTF_8);
        git(source, "add", "file.txt");
        git(source, "-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "-m", message);
    }

    private static String git(Path dir, String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of("git", "-c", "commit.gpgsign=false"));
        argv.addAll(List.of(args));
        Process process = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException("git " + String.join(" ", args) + ": " + out);
        }
        return out;
    }
}
